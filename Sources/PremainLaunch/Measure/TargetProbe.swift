import ELFKit
import PremainAudit
import PremainModel

/// What premain needs to know about the executable before launching it.
public struct TargetProbe: Equatable, Sendable {
    public var path: String
    public var buildID: String?
    /// PT_INTERP; `nil` for static or non-ELF files.
    public var interpreter: String?
    /// True when glibc's loader will run it, so `LD_DEBUG` works.
    public var glibcLoader: Bool
    /// Why there will be no loader phases; `nil` when there will be.
    public var loaderPhasesMissing: String?

    /// Reads `path`'s ELF header and program headers. Never throws: a file that is not ELF is
    /// described as such.
    public static func probe(_ path: String) -> TargetProbe {
        guard let file = try? ELFFile(path: path) else {
            return TargetProbe(path: path, buildID: nil, interpreter: nil, glibcLoader: false,
                               loaderPhasesMissing: "not an ELF file (a script?): LD_DEBUG would describe its interpreter's start-up, not its own")
        }
        let interpreter = file.interpreter
        guard let interpreter else {
            return TargetProbe(path: path, buildID: file.buildID, interpreter: nil, glibcLoader: false,
                               loaderPhasesMissing: "statically linked (no PT_INTERP): no dynamic loader runs, so there are no loader lines to time")
        }
        let name = interpreter.split(separator: "/").last.map(String.init) ?? interpreter
        let glibc = name.hasPrefix("ld-linux") || name.hasPrefix("ld64.so")
        return TargetProbe(path: path, buildID: file.buildID, interpreter: interpreter, glibcLoader: glibc,
                           loaderPhasesMissing: glibc ? nil : "its loader \(interpreter) is not glibc's: LD_DEBUG is a glibc feature")
    }
}
