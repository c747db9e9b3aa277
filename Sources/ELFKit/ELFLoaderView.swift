import ELFValues

/// The tables as glibc's ld.so finds them: through the dynamic tags, whose addresses are mapped
/// through the `PT_LOAD` segments (`elf/get-dynamic-info.h`, `elf/dynamic-link.h`). Section
/// headers are for linkers and debuggers; the loader never reads them. premain reads the
/// tags first, takes sections only as a fallback, and says so in `diagnostics` when the two
/// disagree (a decoy `.dynstr`, a `.rela.dyn` that claims fewer entries than `DT_RELASZ`).
extension ELFFile {
    /// A file range one dynamic tag pair names: `(address tag, size tag)` mapped through
    /// `PT_LOAD`; `nil` when the tags are absent, the size is 0 or the range leaves the file.
    func taggedRange(_ addressTag: DynamicTag, _ sizeTag: DynamicTag) -> (offset: UInt64, size: UInt64)? {
        guard let address = dynamicValue(addressTag), let size = dynamicValue(sizeTag), size > 0,
            let offset = fileOffset(ofAddress: address), contains(offset: offset, size: size)
        else { return nil }
        return (offset, size)
    }

    /// The relocation ranges ld.so applies, as `_ELF_DYNAMIC_DO_RELOC` forms them: `DT_RELA`/
    /// `DT_RELASZ`, `DT_REL`/`DT_RELSZ`, `DT_RELR`/`DT_RELRSZ`, and `DT_JMPREL`/`DT_PLTRELSZ`
    /// in the format `DT_PLTREL` names; when the `DT_RELA` (or `DT_REL`) range ends where the
    /// `DT_JMPREL` range ends, the PLT part is taken out of it (some linkers count it in both).
    /// In file order. `[]` for a file without these tags.
    func loaderRelocationRanges() -> [(tag: DynamicTag, format: ELFRelocationFormat, offset: UInt64, size: UInt64)] {
        var ranges: [(tag: DynamicTag, format: ELFRelocationFormat, offset: UInt64, size: UInt64)] = []
        let pltFormat: ELFRelocationFormat = dynamicValue(.pltRel) == UInt64(DynamicTag.rela.rawValue) ? .rela : .rel
        let plt = taggedRange(.jmpRel, .pltRelSize)
        for (addressTag, sizeTag, format) in [
            (DynamicTag.rela, DynamicTag.relaSize, ELFRelocationFormat.rela),
            (.rel, .relSize, .rel), (.relr, .relrSize, .relr),
        ] {
            guard var range = taggedRange(addressTag, sizeTag) else { continue }
            if format == pltFormat, let plt, range.offset &+ range.size == plt.offset &+ plt.size,
                range.size >= plt.size
            {
                range.size -= plt.size
            }
            if range.size > 0 { ranges.append((addressTag, format, range.offset, range.size)) }
        }
        if let plt { ranges.append((.jmpRel, pltFormat, plt.offset, plt.size)) }
        return ranges.sorted { $0.offset < $1.offset }
    }

    /// Merged `[start, end)` intervals of `ranges`, for comparing two descriptions of the same
    /// bytes.
    static func merged(_ ranges: [(offset: UInt64, size: UInt64)]) -> [ClosedRange<UInt64>] {
        var result: [ClosedRange<UInt64>] = []
        for range in ranges.sorted(by: { $0.offset < $1.offset }) where range.size > 0 {
            // Untrusted sizes: an end past UInt64.max stops there instead of wrapping around.
            let (past, overflow) = range.offset.addingReportingOverflow(range.size)
            let end = overflow ? UInt64.max : past - 1
            if let last = result.last, range.offset <= last.upperBound &+ 1 {
                result[result.count - 1] = last.lowerBound...max(last.upperBound, end)
            } else {
                result.append(range.offset...end)
            }
        }
        return result
    }

    /// The dynamic symbol table where `DT_SYMTAB` puts it, for a file without a `.dynsym`
    /// section header: the loader knows its length only from the hash table (`DT_HASH`'s
    /// `nchain`, or the highest index a `DT_GNU_HASH` chain reaches). `nil` without
    /// `DT_SYMTAB`, or when no hash table gives the length.
    func taggedSymbolTable() -> ELFSymbolTable? {
        guard let address = dynamicValue(.symtab), let offset = fileOffset(ofAddress: address) else { return nil }
        guard let count = symbolCountFromHash(), count > 0 else {
            note("DT_SYMTAB without a usable hash table: its length is unknown")
            return nil
        }
        let entrySize = UInt64(is64 ? 24 : 16)
        let (size, overflow) = UInt64(count).multipliedReportingOverflow(by: entrySize)
        guard !overflow, let entries = bytes(offset: offset, size: size) else {
            note("DT_SYMTAB outside the file", offset: offset, value: "\(count) entries")
            return nil
        }
        let section = ELFSection(
            index: -1, name: "DT_SYMTAB", type: .dynsym, flags: ELFSection.flagAlloc,
            address: address, offset: offset, size: size, link: 0, info: 0,
            entrySize: entrySize)
        return ELFSymbolTable(
            section: section, entries: entries, strings: dynamicStrings, is64: is64,
            count: count)
    }

    /// The number of dynamic symbols the hash tables imply; `nil` when neither is usable.
    func symbolCountFromHash() -> Int? {
        if let address = dynamicValue(.hash), let offset = fileOffset(ofAddress: address),
            let header = bytes(offset: offset, size: 8), let chains = header.u32(at: 4)
        {
            return Int(chains)
        }
        guard let address = dynamicValue(.gnuHash), let offset = fileOffset(ofAddress: address),
            let header = bytes(offset: offset, size: 16), let bucketCount = header.u32(at: 0),
            let symbolOffset = header.u32(at: 4), let bloomWords = header.u32(at: 8),
            bucketCount < 1 << 24, bloomWords < 1 << 24
        else { return nil }
        let bucketsStart = 16 + UInt64(bloomWords) * UInt64(wordSize)
        guard let buckets = bytes(offset: offset + bucketsStart, size: UInt64(bucketCount) * 4) else { return nil }
        var highest: UInt32 = 0
        for index in 0..<Int(bucketCount) {
            if let start = buckets.u32(at: index * 4) { highest = max(highest, start) }
        }
        guard highest >= symbolOffset else { return Int(symbolOffset) }
        // Walk the last chain to its end (bit 0 set), reading at most what the file holds.
        let chainsStart = offset + bucketsStart + UInt64(bucketCount) * 4
        var index = UInt64(highest)
        while true {
            let at = chainsStart + (index - UInt64(symbolOffset)) * 4
            guard let word = bytes(offset: at, size: 4)?.u32(at: 0) else { return nil }
            if word & 1 != 0 { return Int(index + 1) }
            index += 1
        }
    }

    /// Notes every place the section headers tell another story than the dynamic tags the
    /// loader reads. Called once at open, after `readDynamic`.
    func checkSectionsAgainstTags() {
        guard !sections.isEmpty, !dynamicEntries.isEmpty else { return }
        // Loops rather than filter/map/Set: this runs at every open, and the usual file has one
        // `.dynsym`, one `.dynamic` and one `.init_array`.
        if let strtab = dynamicValue(.strtab), let offset = fileOffset(ofAddress: strtab) {
            func check(_ link: Int) {
                let strings = sections[link]
                if strings.offset != offset || strings.address != strtab {
                    note(
                        "section header \(strings.name.isEmpty ? "#\(link)" : strings.name) disagrees with DT_STRTAB; names are read from DT_STRTAB, as the loader reads them",
                        offset: strings.offset, value: "DT_STRTAB 0x\(String(strtab, radix: 16))")
                }
            }
            // The usual file has one or two linked sections (`.dynstr`, once or twice): kept
            // without an array.
            var first = -1
            var second = -1
            var others: [Int] = []
            for section in sections where section.type == .dynsym || section.type == .dynamic {
                let link = Int(section.link)
                guard link > 0 && link < sections.count else { continue }
                if first < 0 || first == link {
                    first = link
                } else if second < 0 || second == link {
                    second = link
                } else {
                    others.append(link)
                }
            }
            // Each linked section once, in index order (the order was a `Set`'s before).
            if others.isEmpty {
                if first >= 0 { check(second < 0 ? first : min(first, second)) }
                if second >= 0 { check(max(first, second)) }
            } else {
                var links = others + [first, second]
                links.sort()
                var previous = -1
                for link in links where link != previous {
                    previous = link
                    check(link)
                }
            }
        }
        if let symtab = dynamicValue(.symtab), let index = sections.firstIndex(where: { $0.type == .dynsym }),
            sections[index].address != symtab
        {
            let section = sections[index]
            note(
                "section header \(section.name) disagrees with DT_SYMTAB; symbols are read from DT_SYMTAB, as the loader reads them",
                offset: section.offset, value: "DT_SYMTAB 0x\(String(symtab, radix: 16))")
        }
        if let range = taggedRange(.initArray, .initArraySize), initArraysDisagree(with: range) {
            note(
                "section header .init_array disagrees with DT_INIT_ARRAY/DT_INIT_ARRAYSZ; the loader runs the entries the tags name",
                value: "DT_INIT_ARRAYSZ \(range.size)")
        }
    }

    /// `true` when the `SHT_INIT_ARRAY` sections with file bytes (if any) cover other bytes than
    /// `range` (from the tags, inside the file).
    func initArraysDisagree(with range: (offset: UInt64, size: UInt64)) -> Bool {
        var arrays: [(offset: UInt64, size: UInt64)] = []
        var single: (offset: UInt64, size: UInt64)?
        var count = 0
        for section in sections where section.type == .initArray && section.hasFileBytes {
            count += 1
            if count == 1 {
                single = (section.offset, section.size)
            } else {
                if count == 2, let single { arrays.append(single) }
                arrays.append((section.offset, section.size))
            }
        }
        guard count > 0 else { return false }
        // One section: the merged intervals are equal exactly when offset and size are (`range`
        // ends inside the file, so only the section's end can be clamped at UInt64.max).
        if count == 1, let single { return single.offset != range.offset || single.size != range.size }
        return Self.merged(arrays) != Self.merged([range])
    }
}
