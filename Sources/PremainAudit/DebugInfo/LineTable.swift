import ELFKit
import PremainModel

/// Source lines of addresses from `.debug_line` alone (and `.debug_line_str` / `.debug_str`
/// for names), giving what `DebugInfo.sourceLocation(of:)` gives through libdw, without
/// decompressing the rest of the DWARF (libdw's `dwarf_begin_elf` inflates every section: 10 MB
/// for libc's debug file, to find two lines).
///
/// libdw picks the compile unit of an address from `.debug_info` and searches that unit's line
/// table (`dwarf_getsrc_die`: the last row at or below the address, unless it ends a sequence,
/// in the table sorted by address with end-of-sequence rows first). This reader searches every
/// line table the same way and takes the unit with a sequence that holds the address as the
/// unit libdw picks (the unit's ranges and its sequences describe the same code). With no such
/// unit, the answer is "no line" when the address lies outside the span (lowest to highest
/// row) of every table. It declines (`.declined`: ask libdw) where it cannot be sure to agree:
/// - when two tables hold the address, or the sequence holding it does not start in an
///   executable section (a discarded function's sequence at address 0), or no table holds it
///   but it lies inside a table's span (libdw's search of that unit can end on a row there,
///   when a sequence's last row sits at its end address);
/// - when the answer's file name needs the unit's `DW_AT_comp_dir` (directory 0 before DWARF 5);
/// - for every address, when a line table is one libdw refuses or that this reader does not
///   read as libdw does (`LineProgram.Refusal`), the file is relocatable, or it has no
///   `.debug_info` or more than one `.debug_line`.
///
/// An address is first looked up in `.debug_aranges` (`AddressRanges`): when exactly one unit's
/// ranges hold it, and the line program at that unit's rank in `.debug_line` has sequences
/// covering exactly that unit's ranges, one of them holding the address, only that program is
/// run, which is the unit libdw picks (`dwarf_addrdie` reads the same ranges). Every other
/// address (no or partial `.debug_aranges`, an address in two units or in none, a program that
/// does not match its unit) is answered by the pass over every line table described above.
///
/// Not thread-safe: one audit of one file uses it.
public final class LineTable {
    /// What the line tables say of one address.
    public enum Answer: Equatable, Sendable {
        /// What `DebugInfo.sourceLocation(of:)` returns (`nil`: no line for the address).
        case location(SourceLocation?)
        /// Ask libdw.
        case declined
    }

    private let file: ELFFile
    let sections: LineProgram.Sections?
    let addressSize: Int
    /// Why every address is declined, when one reason covers them all.
    public private(set) var refusal: String?

    /// The units' ranges of `.debug_aranges`, read on the first look-up; `nil` when the file
    /// has none or they are unusual (`AddressRanges`).
    private(set) lazy var addressRanges: AddressRanges? = Self.unique([".debug_aranges", ".zdebug_aranges"], in: file)
        .flatMap { file.contents(of: $0) }.flatMap { AddressRanges($0, addressSize: addressSize) }
    /// The offsets of the first line programs of `.debug_line`, found so far by their lengths.
    private var programOffsets: [Int] = [0]
    /// The line programs decoded with their rows, by offset (`nil`: refused).
    private var decoded: [Int: LineProgram?] = [:]
    /// A zlib-compressed `.debug_line`, inflated only as far as the programs read need; `nil`
    /// when it was read whole.
    private let lineStream: ELFInflatingSection?

    /// The one section of `file` named one of `names`, when it has bytes in the file.
    private static func unique(_ names: Set<String>, in file: ELFFile) -> ELFSection? {
        let found = file.sections.filter { names.contains($0.name) }
        return found.count == 1 && found[0].hasFileBytes ? found[0] : nil
    }

    /// Reads the line tables of `file` (the file with the DWARF: an object or its debug file).
    public init(_ file: ELFFile) {
        self.file = file
        addressSize = file.is64 ? 8 : 4
        func unique(_ names: Set<String>) -> ELFSection? { Self.unique(names, in: file) }
        guard file.type != 1 else {
            sections = nil
            lineStream = nil
            refusal = "relocatable file"
            return
        }
        let lineSection = unique([".debug_line", ".zdebug_line"])
        lineStream = lineSection.flatMap { file.inflatingContents(of: $0) }
        guard unique([".debug_info", ".zdebug_info"]) != nil,
            let line = lineStream?.reader ?? lineSection.flatMap({ file.contents(of: $0) })
        else {
            sections = nil
            refusal = "no single .debug_info and .debug_line"
            return
        }
        sections = LineProgram.Sections(line: line) { name in
            unique([name, ".z" + name.dropFirst()]).flatMap { file.contents(of: $0) }
        }
    }

    /// The answer for each of `addresses`: through `.debug_aranges` and the one line table of
    /// the unit holding it where they agree, else from one pass over every line table (and a
    /// second decoding, with its rows, of the table that holds each address); every one
    /// `.declined` when `refusal` is set.
    public func answers(for addresses: [UInt64]) -> [UInt64: Answer] {
        let wanted = Array(Set(addresses)).sorted()
        guard let sections, refusal == nil else {
            return Dictionary(uniqueKeysWithValues: wanted.map { ($0, .declined) })
        }
        var result: [UInt64: Answer] = [:]
        var rest: [UInt64] = []
        for address in wanted {
            if let answer = indexedAnswer(for: address) {
                result[address] = answer
            } else {
                rest.append(address)
            }
        }
        guard !rest.isEmpty else { return result }
        return result.merging(scannedAnswers(for: rest)) { first, _ in first }
    }

    /// The line program at `offset`, decoded with its rows once; `nil` when refused or when
    /// its bytes do not inflate.
    private func program(at offset: Int, sections: LineProgram.Sections) -> LineProgram? {
        if let known = decoded[offset] { return known }
        var program: LineProgram?
        if inflated(upTo: offset + Self.longestUnitLength), let end = LineProgram.unitEnd(sections.line, at: offset),
            inflated(upTo: end)
        {
            program = try? LineProgram.decode(sections, at: offset, addressSize: addressSize)
        }
        decoded[offset] = program
        return program
    }

    /// The sections with all of `.debug_line` readable; `nil` when `refusal` is set, or (and
    /// then `refusal` is set) when it does not inflate.
    func wholeSections() -> LineProgram.Sections? {
        guard let sections, refusal == nil else { return nil }
        guard inflated(upTo: sections.line.count) else {
            refusal = ".debug_line does not decompress: \(lineStream?.failure ?? "")"
            return nil
        }
        return sections
    }

    /// The bytes of a 64-bit DWARF unit length.
    private static let longestUnitLength = 12

    /// `true` when the first `count` bytes of `.debug_line` (at most all) can be read.
    private func inflated(upTo count: Int) -> Bool { lineStream?.inflate(upTo: count) ?? true }

    /// The answer for `address` from the one line program of the unit `.debug_aranges` names
    /// for it; `nil` when the index cannot show it is the pass's answer: not exactly one unit
    /// holds it, the program at the unit's rank is missing or refused, its sequences do not
    /// cover exactly the unit's ranges, or none of them holds the address.
    func indexedAnswer(for address: UInt64) -> Answer? {
        guard let sections, refusal == nil, let index = addressRanges,
            let unit = index.unit(holding: address),
            let offset = programOffset(rank: unit, in: sections.line),
            let program = program(at: offset, sections: sections),
            AddressRanges.merged(program.sequences) == index.ranges(ofUnit: unit),
            program.sequences.contains(where: { $0.contains(address) })
        else { return nil }
        return program.answer(for: address, names: sections, file: file)
    }

    /// The offset of the line program at `rank` in `.debug_line`, following the units'
    /// lengths; `nil` when the section has fewer units or a length does not read.
    private func programOffset(rank: Int, in line: ByteReader) -> Int? {
        while programOffsets.count <= rank {
            guard let last = programOffsets.last, inflated(upTo: last + Self.longestUnitLength),
                let next = LineProgram.unitEnd(line, at: last), next < line.count
            else { return nil }
            programOffsets.append(next)
        }
        return programOffsets[rank]
    }

    /// The answers for `addresses` from one pass over every line table; every one `.declined`
    /// (and `refusal` set) when a table is refused.
    func scannedAnswers(for addresses: [UInt64]) -> [UInt64: Answer] {
        let wanted = Array(Set(addresses)).sorted()
        var declinedAll: [UInt64: Answer] { Dictionary(uniqueKeysWithValues: wanted.map { ($0, .declined) }) }
        guard let sections = wholeSections() else { return declinedAll }
        // Per address: the units with a sequence that holds it, and whether it lies between
        // some unit's lowest and highest row.
        var owners: [UInt64: [Int]] = [:]
        var spanned: Set<UInt64> = []
        var offset = 0
        do {
            while offset < sections.line.count {
                let program = try LineProgram.decode(sections, at: offset, addressSize: addressSize, collectRows: false)
                var index = wanted.partitionPoint { $0 >= program.low }
                while index < wanted.count, wanted[index] < program.high {
                    let address = wanted[index]
                    spanned.insert(address)
                    if program.sequences.contains(where: { $0.contains(address) }) {
                        owners[address, default: []].append(offset)
                    }
                    index += 1
                }
                offset = program.end
            }
        } catch {
            refusal = error.description
            return declinedAll
        }
        var result: [UInt64: Answer] = [:]
        for address in wanted {
            let units = owners[address] ?? []
            guard units.count == 1, let unit = units.first else {
                // No unit holds it: no line, unless it lies inside a unit's span, where libdw's
                // search of that unit can still end on a row (a sequence whose last row sits
                // at its end address). Two units hold it: a guess.
                result[address] = units.isEmpty && !spanned.contains(address) ? .location(nil) : .declined
                continue
            }
            result[address] =
                program(at: unit, sections: sections)?.answer(for: address, names: sections, file: file)
                ?? .declined
        }
        return result
    }
}

extension LineProgram {
    /// The answer of this table (with its rows) for `address`, which one of its sequences
    /// holds: what libdw's `dwarf_getsrc_die` and `DebugInfo.sourceLocation(of:)` find in it.
    func answer(for address: UInt64, names: Sections, file: ELFFile) -> LineTable.Answer {
        guard let owner = sequences.first(where: { $0.contains(address) }), Self.isCode(owner.lowerBound, in: file),
            !rows.isEmpty
        else { return .declined }
        // libdw's order: by address, an end of sequence before other rows at its address, then
        // in the order the program made them; the last row is made an end.
        var order = Array(rows.indices)
        order.sort { left, right in
            let a = rows[left]
            let b = rows[right]
            if a.address != b.address { return a.address < b.address }
            if a.endSequence != b.endSequence { return a.endSequence }
            return left < right
        }
        var sorted = order.map { rows[$0] }
        sorted[sorted.count - 1].endSequence = true
        // The last row at or below the address, unless it ends a sequence.
        let index = sorted.partitionPoint { $0.address > address } - 1
        guard index >= 0, !sorted[index].endSequence else { return .location(nil) }
        return answer(for: address, row: sorted[index], sorted: sorted, names: names)
    }

    /// `true` when `address` lies in an executable section (a sequence of a function the
    /// linker discarded starts at 0, outside every one).
    static func isCode(_ address: UInt64, in file: ELFFile) -> Bool {
        file.sections.contains {
            $0.isAllocated && $0.flags & ELFSection.flagExec != 0 && address >= $0.address
                && address - $0.address < $0.size
        }
    }

    /// `DebugInfo.sourceLocation(of:)` for `row`: its location when its line is not 0, else
    /// that of the first row within 256 bytes from the address that has a line.
    private func answer(for address: UInt64, row: Row, sorted: [Row], names: Sections) -> LineTable.Answer {
        if Int(row.file) < files.count, row.line > 0 { return location(row, names: names) }
        guard address <= UInt64.max - 256 else { return .declined }
        let first = sorted.partitionPoint { $0.address >= address }
        for candidate in sorted[first...] {
            guard candidate.address < address + 256 else { break }
            if Int(candidate.file) < files.count, candidate.line > 0 { return location(candidate, names: names) }
        }
        return Int(row.file) < files.count ? location(row, names: names) : .location(nil)
    }

    /// The row's file and line as libdw names them (`dwarf_linesrc`): an absolute name alone,
    /// else the directory, "/" and the name; `.declined` when the directory is the unit's
    /// `DW_AT_comp_dir` (not read here).
    private func location(_ row: Row, names: Sections) -> LineTable.Answer {
        let entry = files[Int(row.file)]
        guard let name = entry.name else {
            return .location(SourceLocation(file: FileEntry.placeholderFileName, line: Int(row.line)))
        }
        var bytes: [UInt8] = []
        if let directory = entry.directory {
            guard directory < directories.count, let reference = directories[directory],
                let text = Self.bytes(reference, in: names)
            else { return .declined }
            bytes = text + [0x2f]
        }
        guard let text = Self.bytes(name, in: names) else { return .declined }
        bytes += text
        return .location(SourceLocation(file: String(decoding: bytes, as: UTF8.self), line: Int(row.line)))
    }

    /// The bytes of a NUL-terminated name, without the NUL; `nil` when unterminated.
    private static func bytes(_ reference: NameReference, in names: Sections) -> [UInt8]? {
        guard let reader = names.reader(reference.section), reference.offset >= 0, reference.offset < reader.count,
            let end = reader.bytes[reference.offset...].firstIndex(of: 0)
        else { return nil }
        return Array(reader.bytes[reference.offset..<end])
    }
}

extension Array {
    /// The first index whose element satisfies `predicate`, which must be false for a prefix
    /// of the array and true for the rest (`count` when it is never true).
    func partitionPoint(_ predicate: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = low + (high - low) / 2
            if predicate(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
