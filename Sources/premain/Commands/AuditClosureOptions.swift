import LosslessText
import PremainAudit
import PremainRender
import PremainSystem

#if canImport(Glibc)
import Glibc
#endif

/// The closure and folder options of `premain audit`, kept apart from the inventory options.
extension AuditCommand {
    static let closureOptionSpecs: [OptionSpec] = [
        OptionSpec(names: ["--no-closure"], valueName: nil,
                   help: "Do not resolve load closures (each file's own tables only)."),
        OptionSpec(names: ["--closure"], valueName: nil, help: "Resolve load closures (the default)."),
        OptionSpec(names: ["--library-path"], valueName: "dirs",
                   help: "Search these colon-separated directories as LD_LIBRARY_PATH would (repeatable).",
                   repeatable: true),
        OptionSpec(names: ["--honor-env"], valueName: nil,
                   help: "Take LD_LIBRARY_PATH from premain's own environment."),
        OptionSpec(names: ["--sysroot"], valueName: "dir",
                   help: "Resolve as if DIR were / (paths, ld.so.cache and default directories inside it)."),
        OptionSpec(names: ["--depth"], valueName: "n", help: "Deepest dependency level the text tree shows (default 32)."),
        OptionSpec(names: ["--all"], valueName: nil, help: "Show system libraries in the tree instead of folding them."),
        OptionSpec(names: ["--top"], valueName: "n", help: "Heaviest objects listed per closure (default 5)."),
        OptionSpec(names: ["-j", "--jobs"], valueName: "n", help: "Files audited in parallel (default: all cores)."),
    ]

    /// Closure options from the command line; `nil` with `--no-closure`.
    static func closureOptions(_ arguments: ParsedArguments) throws(UsageError) -> ClosureOptions? {
        if arguments.flag("--no-closure") {
            if arguments.flag("--closure") { throw UsageError(message: "--closure and --no-closure exclude each other") }
            return nil
        }
        var libraryPath = arguments.all("--library-path").flatMap { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) }
        if arguments.flag("--honor-env"), let value = getenv("LD_LIBRARY_PATH"), value.pointee != 0 {
            // As ld.so: ':' or ';' separates, and an empty element is the current directory.
            libraryPath += LosslessUTF8.string(cString: value)
                .split(omittingEmptySubsequences: false, whereSeparator: { $0 == ":" || $0 == ";" }).map(String.init)
        }
        var sysroot: String?
        if let root = arguments.value("--sysroot") {
            guard LocalFiles.kind(root) == .folder else {
                throw UsageError(message: "--sysroot '\(root)' is not a directory")
            }
            sysroot = root
        }
        let top = try arguments.integer("--top", default: 5, in: 0...1000)
        return ClosureOptions(sysroot: sysroot, libraryPath: libraryPath, topCount: top)
    }

    static func treeOptions(_ arguments: ParsedArguments) throws(UsageError) -> ClosureTextRenderer.Options {
        ClosureTextRenderer.Options(depth: try arguments.integer("--depth", default: 32, in: 0...1000),
                                    all: arguments.flag("--all"))
    }

    static func jobs(_ arguments: ParsedArguments) throws(UsageError) -> Int {
        try arguments.integer("--jobs", default: BatchAudit.processorCount, in: 1...256)
    }
}
