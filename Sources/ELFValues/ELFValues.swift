// The ELF values both ELFKit (which reads them from the file) and the model (which writes
// them to JSON) name: declared once, here. The raw values are the JSON's.

/// ELF class: 32- or 64-bit, as readelf prints it.
public enum ELFClass: String, Sendable, Codable {
    case elf32 = "ELF32"
    case elf64 = "ELF64"
}

/// Byte order of the file's data.
public enum ELFEndianness: String, Sendable, Codable {
    case little, big
}

/// `e_type`, refined: a position-independent executable is an `ET_DYN` with an interpreter
/// or `DF_1_PIE`.
public enum ELFObjectKind: String, Sendable, Codable {
    case executable
    case pieExecutable
    case sharedLibrary
    case relocatable
    case core
    case unknown
}

/// How a relocation table stores its entries: `SHT_REL`, `SHT_RELA` or `SHT_RELR`.
public enum ELFRelocationFormat: String, Sendable, Codable {
    case rel, rela, relr
}

/// Where a static initializer entry comes from, in the order the loader runs them.
public enum InitializerSource: String, Sendable, Codable {
    case preinitArray = "DT_PREINIT_ARRAY"
    case dtInit = "DT_INIT"
    case ctors = ".ctors"
    case initArray = "DT_INIT_ARRAY"
}

/// How an initializer entry's target address was found.
public enum InitializerResolution: String, Sendable, Codable {
    /// The pointer stored in the file.
    case stored
    /// The addend of the `RELATIVE` relocation at the slot.
    case relativeRelocation
    /// A symbolic relocation against a symbol defined in this file.
    case symbolRelocation
    /// The slot is zero and nothing in the file relocates it: the entry is skipped at run time
    /// (glibc skips null and -1 entries only in `.ctors`; a null array entry would crash).
    case unresolved
}

/// Why a file could not be opened (or audited) at all.
public enum ELFOpenFailure: String, Sendable, Codable {
    case missing, unreadable, notRegularFile, notELF, malformed
}
