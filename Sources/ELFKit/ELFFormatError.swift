import ELFValues

/// A broken table inside an ELF file: the reader keeps going past it and lists it in the
/// file's `diagnostics`. A file that cannot be opened at all (missing, not ELF, a header too
/// broken to read) is an `ELFOpenError`.
///
/// `message` is lowercase with no trailing period ("section header table outside the file").
public struct ELFFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Byte offset of the bad record in the file, when known.
    public var offset: UInt64?
    public var message: String
    /// The offending value, when one helps ("0x7fffffff").
    public var value: String?

    public init(_ message: String, offset: UInt64? = nil, value: String? = nil) {
        self.message = message
        self.offset = offset
        self.value = value
    }

    public var description: String {
        var text = message
        if let value { text += " (\(value))" }
        if let offset { text += " at offset 0x\(String(offset, radix: 16))" }
        return text
    }
}

/// Why a file could not be opened at all: it is missing, unreadable, a directory, or not ELF.
public struct ELFOpenError: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: ELFOpenFailure
    public var message: String

    public init(_ reason: ELFOpenFailure, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }
}

extension ELFOpenError {
    /// The file's size or modification time changed between opening and the end of reading
    /// (`ELFFile.changedSinceOpen`): the tables read may mix two versions of it.
    public static let changedWhileRead = ELFOpenError(.unreadable, "the file changed while it was read")
}
