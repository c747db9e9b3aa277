import ELFKit

#if canImport(Glibc)
    import Glibc
#endif

/// One DWARF line program (a unit of `.debug_line`, versions 2 to 5, 32- or 64-bit DWARF)
/// decoded as libdw 0.188 decodes it (`read_srclines` in `dwarf_getsrclines.c`): its rows in
/// the order the program emits them, and its file names.
///
/// Everything libdw refuses in a unit, and everything it reads in a way this reader does not
/// repeat (`DW_LNE_define_file`, NVIDIA extensions, `DW_FORM_strx*`, over-long LEB128 numbers,
/// an `opcode_base` of 0 ...), is a `LineProgram.Refusal`: the caller then leaves the whole
/// section to libdw. Every count and offset is checked against the bytes before use; nothing
/// is allocated from a count that the bytes cannot back.
struct LineProgram {
    /// One row of the line matrix, with the registers premain reads.
    struct Row: Equatable {
        var address: UInt64
        var file: UInt32
        var line: Int32
        var endSequence: Bool
        /// Address of the first row of this row's sequence.
        var sequenceStart: UInt64
    }

    /// Where a name's bytes are: which section and where in it (`.debug_line` for inline
    /// strings). Names are made into `String`s only for the rows asked for.
    struct NameReference: Equatable {
        enum Section: Equatable { case line, lineStrings, strings }
        var section: Section
        var offset: Int
    }

    /// A file entry: its name and its directory's index (`nil`: the name is absolute, or the
    /// entry is the placeholder name libdw gives index 0 of DWARF < 5).
    struct FileEntry: Equatable {
        /// The name libdw gives a file entry without a name of its own.
        static let placeholderFileName = "???"

        var name: NameReference?
        var directory: Int?
    }

    /// Why a unit is left to libdw.
    struct Refusal: Error, Equatable, CustomStringConvertible {
        var offset: Int
        var message: String
        var description: String { "\(message) at .debug_line+0x\(String(offset, radix: 16))" }
    }

    /// The sections a line program and its names are read from; the string sections are
    /// read (and decompressed) only when a header names a string in them.
    final class Sections {
        let line: ByteReader
        private let load: (String) -> ByteReader?

        /// `load` gives the contents of a section by name, `nil` when the file has none.
        init(line: ByteReader, load: @escaping (String) -> ByteReader?) {
            self.line = line
            self.load = load
        }

        private(set) lazy var lineStrings: ByteReader? = load(".debug_line_str")
        private(set) lazy var strings: ByteReader? = load(".debug_str")

        func reader(_ section: NameReference.Section) -> ByteReader? {
            switch section {
            case .line: return line
            case .lineStrings: return lineStrings
            case .strings: return strings
            }
        }
    }

    var version: Int
    /// The rows, when asked for (`collectRows`); else `[]`.
    var rows: [Row] = []
    /// The lowest and highest row addresses (`low > high` when there is no row).
    var low = UInt64.max
    var high: UInt64 = 0
    /// The address range of each sequence, from its first row to its end.
    var sequences: [Range<UInt64>] = []
    /// Directory names; entry 0 of DWARF < 5 is the unit's `DW_AT_comp_dir`, unknown here (`nil`).
    var directories: [NameReference?] = []
    var files: [FileEntry] = []
    /// Offset of the next unit in `.debug_line`.
    var end: Int

    // DWARF constants (DWARF 5, section 7.22 and 7.6).
    static let lnsCopy: UInt8 = 1, lnsAdvancePC: UInt8 = 2, lnsAdvanceLine: UInt8 = 3, lnsSetFile: UInt8 = 4
    static let lnsSetColumn: UInt8 = 5, lnsNegateStmt: UInt8 = 6, lnsSetBasicBlock: UInt8 = 7
    static let lnsConstAddPC: UInt8 = 8, lnsFixedAdvancePC: UInt8 = 9, lnsSetPrologueEnd: UInt8 = 10
    static let lnsSetEpilogueBegin: UInt8 = 11, lnsSetISA: UInt8 = 12
    static let lneEndSequence: UInt8 = 1, lneSetAddress: UInt8 = 2, lneDefineFile: UInt8 = 3
    static let lneSetDiscriminator: UInt8 = 4, lneNVIDIAInlinedCall: UInt8 = 0x90,
        lneNVIDIASetFunctionName: UInt8 = 0x91
    static let lnctPath: UInt16 = 1, lnctDirectoryIndex: UInt16 = 2

    /// The offset of the unit after the one at `offset` of `line`, from its length alone;
    /// `nil` when the length does not read or runs past the section.
    static func unitEnd(_ line: ByteReader, at offset: Int) -> Int? {
        var cursor = DWARFCursor(line, at: offset)
        guard let length32 = cursor.u32() else { return nil }
        var length = UInt64(length32)
        if length32 == 0xffff_ffff {
            guard let length64 = cursor.u64() else { return nil }
            length = length64
        }
        guard length <= UInt64(cursor.remaining) else { return nil }
        return cursor.position + Int(length)
    }

    /// Decodes the unit at `offset` of `sections.line`. `addressSize`: the size of an address
    /// of the file's class, taken as its units' address size.
    /// `collectRows`: keep the rows (else only `low`, `high` and `sequences`, for a cheaper
    /// first look at a unit).
    static func decode(
        _ sections: Sections, at offset: Int, addressSize: Int,
        collectRows: Bool = true
    ) throws(Refusal) -> LineProgram {
        var cursor = DWARFCursor(sections.line, at: offset)
        func refuse(_ message: String) -> Refusal { Refusal(offset: cursor.position, message: message) }

        // Header (DWARF 5, 6.2.4), in libdw's order of checks.
        guard let length32 = cursor.u32() else { throw refuse("truncated unit length") }
        var unitLength = UInt64(length32)
        var offsetSize = 4
        if length32 == 0xffff_ffff {
            guard let length64 = cursor.u64() else { throw refuse("truncated 64-bit unit length") }
            unitLength = length64
            offsetSize = 8
        }
        guard unitLength <= UInt64(cursor.remaining) else { throw refuse("unit length past the section") }
        let unitEnd = cursor.position + Int(unitLength)
        cursor.end = unitEnd
        guard let version = cursor.u16() else { throw refuse("truncated version") }
        guard (2...5).contains(version) else { throw refuse("unsupported version \(version)") }
        if version >= 5 {
            guard let size = cursor.u8(), let segment = cursor.u8() else { throw refuse("truncated address size") }
            guard Int(size) == addressSize, segment == 0 else {
                throw refuse("address size \(size), segment \(segment)")
            }
        }
        guard let headerLength = cursor.offset(size: offsetSize) else { throw refuse("truncated header length") }
        let headerStart = cursor.position
        guard let minimumLength = cursor.u8() else { throw refuse("truncated header") }
        var maximumOperations: UInt8 = 1
        if version >= 4 {
            guard let value = cursor.u8(), value != 0 else { throw refuse("bad maximum_operations_per_instruction") }
            maximumOperations = value
        }
        guard let defaultIsStmt = cursor.u8(), let lineBaseByte = cursor.u8(), let lineRange = cursor.u8(),
            let opcodeBase = cursor.u8()
        else { throw refuse("truncated header") }
        let lineBase = Int8(bitPattern: lineBaseByte)
        guard opcodeBase > 0 else { throw refuse("opcode_base 0") }
        let lengthsStart = cursor.position
        guard cursor.skip(Int(opcodeBase) - 1) else { throw refuse("truncated standard_opcode_lengths") }
        // standard_opcode_lengths[opcode - 1], as libdw indexes it (opcode 1 is the first byte).
        let standardLengths = (0..<(Int(opcodeBase) - 1)).map { sections.line.u8(at: lengthsStart + $0) ?? 0 }

        var program = LineProgram(version: Int(version), end: unitEnd)
        if version < 5 {
            try program.readVersion4Tables(&cursor)
        } else {
            try program.readVersion5Tables(&cursor, sections: sections, offsetSize: offsetSize)
        }
        let (headerEnd, overflow) = headerStart.addingReportingOverflow(Int(clamping: headerLength))
        guard !overflow else { throw refuse("header length overflows") }
        // libdw reads 4 more bytes here as an NVIDIA CUBIN string offset.
        guard cursor.position != headerEnd - 4 else { throw refuse("CUBIN line header") }
        guard cursor.position == headerEnd else { throw refuse("header length disagrees with its tables") }

        // A first look goes the quick way when it can; whatever that way leaves, `run` reads.
        if !collectRows, maximumOperations == 1,
            let ended = program.runQuickly(
                &cursor, addressSize: addressSize, minimumLength: minimumLength, defaultIsStmt: defaultIsStmt,
                lineBase: lineBase, lineRange: lineRange, opcodeBase: opcodeBase, standardLengths: standardLengths)
        {
            guard ended else { throw refuse("rows after the last DW_LNE_end_sequence") }
            return program
        }
        let ended = try program.run(
            &cursor, addressSize: addressSize, minimumLength: minimumLength,
            maximumOperations: maximumOperations, defaultIsStmt: defaultIsStmt,
            lineBase: lineBase, lineRange: lineRange, opcodeBase: opcodeBase,
            standardLengths: standardLengths, collectRows: collectRows)
        // libdw makes the highest row an end; which unit owns the rows after the last end
        // would be a guess.
        guard ended else { throw refuse("rows after the last DW_LNE_end_sequence") }
        return program
    }

    /// DWARF 2-4 `include_directories` and `file_names`.
    private mutating func readVersion4Tables(_ cursor: inout DWARFCursor) throws(Refusal) {
        func refuse(_ message: String) -> Refusal { Refusal(offset: cursor.position, message: message) }
        directories = [nil]
        while let byte = cursor.peek(), byte != 0 {
            guard let name = cursor.skipString() else { throw refuse("unterminated directory name") }
            directories.append(NameReference(section: .line, offset: name))
        }
        guard cursor.u8() == 0 else { throw refuse("unterminated include_directories") }
        files = [FileEntry(name: nil, directory: nil)]
        guard cursor.remaining > 0 else { throw refuse("missing file_names") }
        while let byte = cursor.peek(), byte != 0 {
            guard let name = cursor.skipString() else { throw refuse("unterminated file name") }
            guard cursor.remaining > 0, let directory = cursor.uleb(), cursor.remaining > 0, cursor.uleb() != nil,
                cursor.remaining > 0, cursor.uleb() != nil
            else { throw refuse("truncated file entry") }
            guard directory < UInt64(directories.count) else {
                throw refuse("directory index \(directory) out of range")
            }
            let absolute = cursor.reader.u8(at: name) == 0x2f
            files.append(
                FileEntry(name: NameReference(section: .line, offset: name), directory: absolute ? nil : Int(directory))
            )
        }
        guard cursor.u8() == 0 else { throw refuse("unterminated file_names") }
    }

    /// DWARF 5 `directories` and `file_names`, described by entry formats.
    private mutating func readVersion5Tables(
        _ cursor: inout DWARFCursor, sections: Sections,
        offsetSize: Int
    ) throws(Refusal) {
        func refuse(_ message: String) -> Refusal { Refusal(offset: cursor.position, message: message) }
        func formats() throws(Refusal) -> [(UInt16, UInt16)] { try Self.entryFormats(&cursor) }
        func entryCount(formats: Int) throws(Refusal) -> Int {
            guard cursor.remaining > 0, let count = cursor.uleb() else { throw refuse("truncated entry count") }
            guard formats != 0 || count == 0 else { throw refuse("entries without formats") }
            guard formats == 0 || count <= UInt64(cursor.remaining / formats) else {
                throw refuse("entry count \(count) past the unit")
            }
            return Int(count)
        }
        func name(form: UInt16) throws(Refusal) -> NameReference {
            try Self.entryName(form: form, at: cursor.position, sections: sections, offsetSize: offsetSize)
        }

        let directoryFormats = try formats()
        guard directoryFormats.isEmpty || directoryFormats.contains(where: { $0.0 == Self.lnctPath }) else {
            throw refuse("directory format without DW_LNCT_path")
        }
        let directoryCount = try entryCount(formats: directoryFormats.count)
        let directoryPath = directoryFormats.lastIndex { $0.0 == Self.lnctPath }
        directories.reserveCapacity(directoryCount)
        for _ in 0..<directoryCount {
            var path: NameReference?
            for (index, format) in directoryFormats.enumerated() {
                if index == directoryPath { path = try name(form: format.1) }
                guard cursor.skip(form: format.1, offsetSize: offsetSize) else {
                    throw refuse("truncated directory entry")
                }
            }
            guard let path else { throw refuse("directory without a name") }
            directories.append(path)
        }

        let fileFormats = try formats()
        let filePath = fileFormats.lastIndex { $0.0 == Self.lnctPath }
        let fileDirectory = fileFormats.lastIndex { $0.0 == Self.lnctDirectoryIndex }
        guard fileFormats.isEmpty || (filePath != nil && fileDirectory != nil) else {
            throw refuse("file format without DW_LNCT_path or DW_LNCT_directory_index")
        }
        // libdw reads the count without checking that a byte is left.
        guard cursor.remaining > 0 else { throw refuse("truncated file count") }
        let fileCount = try entryCount(formats: fileFormats.count)
        files.reserveCapacity(max(fileCount, 1))
        for _ in 0..<fileCount {
            var path: NameReference?
            var directory: UInt64?
            for (index, format) in fileFormats.enumerated() {
                if index == filePath {
                    path = try name(form: format.1)
                } else if index == fileDirectory {
                    directory = cursor.unsignedValue(form: format.1)
                }
                guard cursor.skip(form: format.1, offsetSize: offsetSize) else { throw refuse("truncated file entry") }
            }
            guard let path, let directory else { throw refuse("file without a name or directory") }
            guard directory < UInt64(directories.count) else {
                throw refuse("directory index \(directory) out of range")
            }
            let absolute = sections.reader(path.section)?.u8(at: path.offset) == 0x2f
            files.append(FileEntry(name: path, directory: absolute ? nil : Int(directory)))
        }
        // Without entries, index 0 has libdw's placeholder name (`placeholderFileName`).
        if files.isEmpty { files = [FileEntry(name: nil, directory: nil)] }
    }

    /// DWARF 5 entry formats: (content type, form) pairs, truncated to 16 bits as libdw does.
    private static func entryFormats(_ cursor: inout DWARFCursor) throws(Refusal) -> [(UInt16, UInt16)] {
        func refuse(_ message: String) -> Refusal { Refusal(offset: cursor.position, message: message) }
        guard let count = cursor.u8() else { throw refuse("truncated entry format count") }
        var pairs: [(UInt16, UInt16)] = []
        for _ in 0..<count {
            guard cursor.remaining > 0, let kind = cursor.uleb(), cursor.remaining > 0,
                let form = cursor.uleb()
            else { throw refuse("truncated entry format") }
            let pair = (UInt16(truncatingIfNeeded: kind), UInt16(truncatingIfNeeded: form))
            guard DWARFForm.isValidLineForm(pair.1) else {
                throw refuse("form 0x\(String(pair.1, radix: 16)) in a line header")
            }
            pairs.append(pair)
        }
        return pairs
    }

    /// One string of a DWARF 5 entry at `start`, where libdw's dwarf_formstring finds it.
    private static func entryName(form: UInt16, at start: Int, sections: Sections, offsetSize: Int) throws(Refusal)
        -> NameReference
    {
        func refuse(_ message: String) -> Refusal { Refusal(offset: start, message: message) }
        let reference: NameReference
        switch form {
        case DWARFForm.string:
            reference = NameReference(section: .line, offset: start)
        case DWARFForm.lineStrp, DWARFForm.strp:
            let section: NameReference.Section = form == DWARFForm.lineStrp ? .lineStrings : .strings
            guard let value = sections.line.word(at: start, is64: offsetSize == 8) else {
                throw refuse("truncated string offset")
            }
            guard let strings = sections.reader(section), value < UInt64(strings.count) else {
                throw refuse("string offset 0x\(String(value, radix: 16)) outside its section")
            }
            reference = NameReference(section: section, offset: Int(value))
        default:
            throw refuse("path form 0x\(String(form, radix: 16)) not read here")
        }
        guard let text = sections.reader(reference.section), Self.isTerminated(text, at: reference.offset) else {
            throw refuse("unterminated name")
        }
        return reference
    }

    /// `true` when a NUL ends the string at `offset` inside `reader`.
    static func isTerminated(_ reader: ByteReader, at offset: Int) -> Bool {
        guard offset >= 0, offset < reader.count, let base = reader.bytes.baseAddress else { return false }
        return memchr(base + offset, 0, reader.count - offset) != nil
    }
}
