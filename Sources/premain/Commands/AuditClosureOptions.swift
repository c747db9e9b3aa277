import LosslessText
import PremainAudit
import PremainRender
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The closure and folder options of `premain audit`, kept apart from the inventory options.
extension AuditCommand {
    static let noClosure = Option.flag(
        "--no-closure", help: "Do not resolve load closures (each file's own tables only)")
    static let closure = Option.flag("--closure", help: "Resolve load closures (the default)")
    static let libraryPath = Option<[String]>.repeating(
        "--library-path", value: "dirs",
        help: "Search these colon-separated directories as LD_LIBRARY_PATH would (repeatable)")
    static let honorEnv = Option.flag("--honor-env", help: "Take LD_LIBRARY_PATH from premain's own environment")
    static let sysroot = Option<String?>(
        "--sysroot", value: "dir", kind: .path(.folder),
        help: "Resolve as if DIR were / (paths, ld.so.cache and default directories inside it)")
    static let depth = Option<Int>(
        "--depth", value: "n", help: "Deepest dependency level the text tree shows", default: 32, in: 0...1000)
    static let all = Option.flag("--all", help: "Show system libraries in the tree instead of folding them")
    static let top = Option<Int>(
        "--top", value: "n", help: "Heaviest objects listed per closure", default: 5, in: 0...1000)
    static let jobs = Option<Int>(
        "--jobs", short: "-j", value: "n", help: "Files audited in parallel", default: BatchAudit.processorCount,
        in: 1...256,
        defaultText: "all cores")

    static let closureOptionSpecs: [any DeclaredOption] = [
        noClosure, closure, libraryPath, honorEnv, sysroot, depth, all, top, jobs,
    ]

    /// Closure options from the command line; `nil` with `--no-closure`.
    static func closureOptions(_ arguments: ParsedArguments) throws(UsageError) -> ClosureOptions? {
        if arguments[noClosure] { return nil }
        var libraryPath = arguments[Self.libraryPath].flatMap {
            $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        }
        if arguments[honorEnv], let value = PremainEnvironment.libraryPath.value {
            // As ld.so: ':' or ';' separates, and an empty element is the current directory.
            libraryPath +=
                value
                .split(omittingEmptySubsequences: false, whereSeparator: { $0 == ":" || $0 == ";" }).map(String.init)
        }
        var sysroot: String?
        if let root = arguments[Self.sysroot] {
            guard LocalFiles.kind(root) == .folder else {
                throw UsageError(message: "\(Self.sysroot) '\(root)' is not a directory")
            }
            sysroot = root
        }
        return ClosureOptions(sysroot: sysroot, libraryPath: libraryPath, topCount: arguments[top])
    }

    static func treeOptions(_ arguments: ParsedArguments) -> ClosureTextRenderer.Options {
        ClosureTextRenderer.Options(depth: arguments[depth], all: arguments[all])
    }
}
