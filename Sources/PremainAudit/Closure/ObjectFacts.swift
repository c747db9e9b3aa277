import ELFKit
import PremainModel

/// What the resolver needs to know about one candidate file, read once.
public struct ObjectFacts: Sendable, Equatable {
    public var elfClass: ELFClass
    public var machine: ELFMachine
    public var endianness: ELFEndianness
    public var device: UInt64
    public var inode: UInt64
    public var soname: String?
    public var needed: [String]
    /// `DT_RPATH` split at colons; `[]` when absent or when `DT_RUNPATH` is present (glibc
    /// ignores `DT_RPATH` then).
    public var rpath: [String]
    public var runpath: [String]
    public var hasRunpath: Bool
    public var noDefaultLib: Bool
    public var interpreter: String?
    public var hasDynamic: Bool

    public init(_ file: ELFFile) {
        elfClass = file.elfClass
        machine = file.machine
        endianness = file.endianness
        device = file.device
        inode = file.inode
        soname = file.soname
        needed = file.neededLibraries
        hasRunpath = file.hasRunpath
        rpath = file.hasRunpath ? [] : file.rpath
        runpath = file.runpath
        noDefaultLib = file.noDefaultLib
        interpreter = file.interpreter
        hasDynamic = !file.dynamicEntries.isEmpty
    }
}
