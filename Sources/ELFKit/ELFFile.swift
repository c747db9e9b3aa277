import CELF
import ELFValues
import LosslessText

#if canImport(Glibc)
    import Glibc
#endif

/// An ELF file opened read-only: mapped, its headers read from the mapping when they are plain
/// (`plainHeader`), else through libelf.
///
/// Opening reads the ELF header, the section headers and the program headers; every other
/// table is read on demand by the task-shaped accessors in the extensions of this type. A
/// broken table is recorded in `diagnostics` and treated as absent, so the intact rest of the
/// file can still be reported. Byte buffers handed out (`ByteReader`) stay valid while the
/// `ELFFile` lives.
public final class ELFFile {
    public let path: String
    public let fileSize: UInt64
    public let elfClass: ELFClass
    public let endianness: ELFEndianness
    public let machine: ELFMachine
    /// `e_type`: 1 relocatable, 2 executable, 3 shared object, 4 core.
    public let type: UInt16
    public let entry: UInt64
    public let osABI: UInt8
    public let flags: UInt32
    /// Device and inode, which the loader uses to recognise one object under two names.
    public let device: UInt64
    public let inode: UInt64
    public private(set) var sections: [ELFSection] = []
    /// `SectionNames` hash of each of `sections`' names, in the same order.
    private var sectionNameHashes: [UInt32] = []
    public private(set) var segments: [ELFSegment] = []
    /// Problems found in tables that were skipped; empty for a sound file.
    public internal(set) var diagnostics: [ELFFormatError] = []
    /// `PT_INTERP`: the program interpreter, or `nil` when there is none.
    public private(set) var interpreter: String?
    /// The dynamic entries up to `DT_NULL`, from `PT_DYNAMIC` (the loader's view) or else the
    /// `SHT_DYNAMIC` section; `[]` for a file without dynamic linking.
    public internal(set) var dynamicEntries: [ELFDynamicEntry] = []
    /// The dynamic string table (`DT_STRTAB`), or `nil` when absent or broken.
    public internal(set) var dynamicStrings: ByteReader?

    // Tables an audit asks for several times (inventory, initializers, closure costs, symbol
    // binding): read on first use and kept, so each is parsed and diagnosed once.

    /// `DT_NEEDED` names in order; `[]` when the file has no dynamic section.
    public private(set) lazy var neededLibraries: [String] = dynamicStrings(.needed)
    /// The dynamic symbol table where `DT_SYMTAB` puts it (the `.dynsym` section when it
    /// agrees), names from `DT_STRTAB`; `nil` when the file has none.
    public private(set) lazy var dynamicSymbols: ELFSymbolTable? = symbolTable(.dynsym)
    /// The full symbol table, or `nil` when the file is stripped.
    public private(set) lazy var staticSymbols: ELFSymbolTable? = symbolTable(.symtab)
    /// Symbol versions of the dynamic symbols, or `nil` when the file has no `SHT_GNU_versym`.
    public private(set) lazy var symbolVersions: ELFSymbolVersions? = readSymbolVersions()
    /// The GNU build-id as lowercase hex, from `NT_GNU_BUILD_ID` in a note section or
    /// `PT_NOTE` segment; `nil` when the file has none.
    public private(set) lazy var buildID: String? = readBuildID()
    /// The relocation tables the loader applies, in file order: the ranges the dynamic tags
    /// name (`DT_RELA`, `DT_REL`, `DT_RELR`, `DT_JMPREL`), as the allocated `SHT_REL`,
    /// `SHT_RELA` and `SHT_RELR` sections when those cover the same bytes (else with a
    /// diagnostic); the sections alone for a file without such tags. `[]` for files without
    /// dynamic relocations.
    public private(set) lazy var dynamicRelocationTables: [ELFRelocationTable] = readDynamicRelocationTables()
    /// The initializer array slots (`DT_PREINIT_ARRAY`, `DT_INIT_ARRAY`, `.ctors`): source,
    /// index, slot address and stored word, read once for `initializerEntries` and the
    /// relocation count that finds their relocations beside it (`relocationClassCounts`),
    /// with the diagnostics reading them made, which `initializerEntries` adds where it is
    /// asked (as when it read the slots itself).
    lazy var initializerSlots: (slots: [(InitializerSource, Int, UInt64, UInt64)], notes: [ELFFormatError]) =
        readInitializerSlots()
    /// For each relocation table counted by `relocationClassCounts` (by file offset and
    /// size): its entries at initializer slots, so that `initializerEntries` does not read it
    /// again.
    var initializerSlotEntries: [(offset: UInt64, count: Int, entries: [Int])] = []

    /// The file's bytes, which the headers and every table are read from: this file's own
    /// mapping (`ELFMapping.map`), libelf's mapping or copy of it, or `memory`.
    let image: UnsafeRawBufferPointer
    /// `true` when `image` is this file's own mapping, unmapped when it ends.
    private let ownsMapping: Bool
    /// libelf's handle of the file, for what only libelf reads (compressed sections, see
    /// `libelf()`): made at the open of a file whose headers are not plain (`plainHeader`),
    /// else on first use.
    private var libelfHandle: OpaquePointer?
    /// The guard slot of libelf's mapping, or -1 (none, read, or in memory).
    private var libelfSlot: Int32 = -1
    /// The open file, or -1 for bytes given in memory.
    let fd: Int32
    /// The bytes of a file given in memory (`init(memory:path:)`), else `nil`.
    private let memory: UnsafeMutableRawBufferPointer?
    /// Size and modification time at open, to tell whether the file changed while it was read.
    private let openedStamp: FileStamp?
    /// The SIGBUS guard's slot for the mapping `image` is in, or -1 (read, or in memory).
    private let guardSlot: Int32

    public var is64: Bool { elfClass == .elf64 }
    public var isBigEndian: Bool { endianness == .big }
    public var wordSize: Int { is64 ? 8 : 4 }

    /// Opens `path`. Throws `ELFOpenError` when it is missing, unreadable, not a regular file,
    /// not ELF, or has an unusable ELF header.
    ///
    /// The file type is checked with `stat` before the file is opened, and the open does not
    /// block, so a FIFO or a device is refused instead of waited on. The file is mapped
    /// (`ELFMapping.map`): only the pages of the tables read are touched, and none is copied.
    /// Its headers are read from the mapping when they are plain (`plainHeader`), else through
    /// libelf, which maps the file itself (`ELFMapping.begin`) and whose reading of broken
    /// headers (and its diagnostics) stays as it was. A file that shrinks while it is read
    /// gives pages of zeros past its new end (broken tables, and `changedSinceOpen`), not a
    /// SIGBUS.
    public convenience init(path: String) throws(ELFOpenError) {
        try self.init(path: path, throughLibelf: false)
    }

    /// `init(path:)`; `throughLibelf` reads the headers through libelf even when they are plain
    /// (to compare both readings in tests).
    convenience init(path: String, throughLibelf: Bool) throws(ELFOpenError) {
        var info = stat()
        // One C string for both calls; -2: `stat` failed (errno says why), -3: not a regular
        // file or empty (`requireRegular` of `info` says why).
        let opened = LosslessUTF8.withCString(path) { name -> Int32 in
            guard stat(name, &info) == 0 else { return -2 }
            guard (try? Self.requireRegular(info)) != nil else { return -3 }
            return open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        }
        if opened == -2 { throw Self.openError(errno) }
        if opened == -3 { try Self.requireRegular(info) }
        let fd = opened
        guard fd >= 0 else { throw Self.openError(errno) }
        guard fstat(fd, &info) == 0 else {
            let error = Self.openError(errno)
            close(fd)
            throw error
        }
        do throws(ELFOpenError) {
            try Self.requireRegular(info)
            // On the stack: an array costs an allocation per open.
            var magic: (UInt64, UInt64) = (0, 0)
            let got = withUnsafeMutableBytes(of: &magic) { pread(fd, $0.baseAddress, 16, 0) }
            guard got >= 0 else { throw Self.openError(errno) }
            try withUnsafeBytes(of: &magic) { bytes throws(ELFOpenError) in
                try Self.checkIdentification(bytes, count: got)
            }
        } catch {
            close(fd)
            throw error
        }
        let size = UInt64(max(info.st_size, 0))
        if !throughLibelf, let (image, slot) = ELFMapping.map(fd, size: Int(info.st_size)) {
            if let header = Self.plainHeader(image) {
                self.init(
                    path: path, image: image, header: header, elf: nil, fd: fd, memory: nil, guardSlot: slot,
                    size: size, device: UInt64(info.st_dev), inode: UInt64(info.st_ino), stamp: FileStamp(info))
                return
            }
            ELFMapping.unmap(image, guardSlot: slot)
        }
        guard let (elf, slot) = ELFMapping.begin(fd) else {
            let message = Self.libelfMessage()
            close(fd)
            throw ELFOpenError(.malformed, message)
        }
        let (image, header) = try Self.libelfHeader(elf, guardSlot: slot, fd: fd, memory: nil)
        self.init(
            path: path, image: image, header: header, elf: elf, fd: fd, memory: nil, guardSlot: slot, size: size,
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), stamp: FileStamp(info))
    }

    /// Reads an ELF image held in memory (a copy of `bytes` is made), named `path` in the
    /// report; it has no device or inode (both 0). Throws as `init(path:)` does for content.
    public convenience init(memory bytes: UnsafeRawBufferPointer, path: String) throws(ELFOpenError) {
        try self.init(memory: bytes, path: path, throughLibelf: false)
    }

    /// `init(memory:path:)`; `throughLibelf` as for `init(path:throughLibelf:)`.
    convenience init(memory bytes: UnsafeRawBufferPointer, path: String, throughLibelf: Bool) throws(ELFOpenError) {
        try Self.checkIdentification(UnsafeRawBufferPointer(rebasing: bytes.prefix(16)), count: min(bytes.count, 16))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 16)
        buffer.copyMemory(from: bytes)
        if !throughLibelf, let header = Self.plainHeader(UnsafeRawBufferPointer(buffer)) {
            self.init(
                path: path, image: UnsafeRawBufferPointer(buffer), header: header, elf: nil, fd: -1, memory: buffer,
                guardSlot: -1, size: UInt64(bytes.count), device: 0, inode: 0, stamp: nil)
            return
        }
        _ = elf_version(UInt32(EV_CURRENT))
        guard let base = buffer.baseAddress,
            let elf = elf_memory(base.assumingMemoryBound(to: CChar.self), bytes.count)
        else {
            let message = Self.libelfMessage()
            buffer.deallocate()
            throw ELFOpenError(.malformed, message)
        }
        let (image, header) = try Self.libelfHeader(elf, guardSlot: -1, fd: -1, memory: buffer)
        self.init(
            path: path, image: image, header: header, elf: elf, fd: -1, memory: buffer, guardSlot: -1,
            size: UInt64(bytes.count), device: 0, inode: 0, stamp: nil)
    }

    /// The ELF header of `elf` and the file's bytes as libelf holds them; throws (ending
    /// `elf`, closing `fd` when >= 0, freeing `memory`) when libelf has no usable header.
    private static func libelfHeader(
        _ elf: OpaquePointer, guardSlot: Int32, fd: Int32, memory: UnsafeMutableRawBufferPointer?
    ) throws(ELFOpenError) -> (UnsafeRawBufferPointer, ELFHeader) {
        var ehdr = GElf_Ehdr()
        guard elf_kind(elf) == ELF_K_ELF, gelf_getehdr(elf, &ehdr) != nil, elf_getident(elf, nil) != nil else {
            let message = Self.libelfMessage()
            ELFMapping.end(elf, guardSlot: guardSlot)
            if fd >= 0 { close(fd) }
            memory?.deallocate()
            throw ELFOpenError(.malformed, "unusable ELF header: \(message)")
        }
        var size = 0
        let image = elf_rawfile(elf, &size).map { UnsafeRawBufferPointer(start: $0, count: size) }
        let header = ELFHeader(
            type: ehdr.e_type, machine: ehdr.e_machine, entry: ehdr.e_entry, flags: ehdr.e_flags,
            programHeaders: ehdr.e_phoff, sectionHeaders: ehdr.e_shoff, programHeaderSize: ehdr.e_phentsize,
            programHeaderCount: ehdr.e_phnum, sectionHeaderSize: ehdr.e_shentsize,
            sectionHeaderCount: ehdr.e_shnum, sectionNamesIndex: ehdr.e_shstrndx)
        return (image ?? UnsafeRawBufferPointer(start: nil, count: 0), header)
    }

    /// Takes ownership of `elf` (when not nil; else `image` is this file's mapping when
    /// `guardSlot` >= 0), `fd` (when >= 0) and `memory` (when not nil).
    private init(
        path: String, image: UnsafeRawBufferPointer, header: ELFHeader, elf: OpaquePointer?, fd: Int32,
        memory: UnsafeMutableRawBufferPointer?, guardSlot: Int32, size: UInt64, device: UInt64, inode: UInt64,
        stamp: FileStamp?
    ) {
        self.guardSlot = guardSlot
        self.path = path
        self.fd = fd
        self.image = image
        self.libelfHandle = elf
        self.ownsMapping = elf == nil && guardSlot >= 0
        if elf != nil { self.libelfSlot = guardSlot }
        self.memory = memory
        self.openedStamp = stamp
        self.fileSize = size
        self.device = device
        self.inode = inode
        // The identification was checked (`checkIdentification`) before.
        let identified = image.count >= 16
        self.elfClass = identified && image[4] == 2 ? .elf64 : .elf32
        self.endianness = identified && image[5] == 2 ? .big : .little
        self.osABI = identified ? image[7] : 0
        self.machine = ELFMachine(rawValue: header.machine)
        self.type = header.type
        self.entry = header.entry
        self.flags = header.flags
        if let elf {
            readProgramHeaders(header, elf: elf)
            readSectionHeaders(header, elf: elf)
        } else {
            switch (elfClass, endianness) {
            case (.elf64, .little): readPlainHeaders(header, LittleEndian64.self)
            case (.elf64, .big): readPlainHeaders(header, BigEndian64.self)
            case (.elf32, .little): readPlainHeaders(header, LittleEndian32.self)
            case (.elf32, .big): readPlainHeaders(header, BigEndian32.self)
            }
        }
        interpreter = readInterpreter()
        readDynamic()
        checkSectionsAgainstTags()
    }

    deinit {
        if let libelfHandle { ELFMapping.end(libelfHandle, guardSlot: libelfSlot) }
        if ownsMapping { ELFMapping.unmap(image, guardSlot: guardSlot) }
        if fd >= 0 { close(fd) }
        memory?.deallocate()
    }

    /// `true` when the file's size or modification time differs from when it was opened: what
    /// was read may mix two versions of it. Always `false` for bytes in memory.
    public var changedSinceOpen: Bool {
        guard let openedStamp, fd >= 0 else { return false }
        if shrankWhileMapped { return true }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return true }
        return FileStamp(info) != openedStamp
    }

    /// Lets the kernel reclaim the file pages read so far (they are read again when needed):
    /// keeps the peak memory of an audit of a large file near that of its largest table.
    public func releasePages() {
        ELFMapping.releasePages(image, guardSlot: guardSlot)
        if let libelfHandle, libelfSlot != guardSlot { ELFMapping.releasePages(libelfHandle, guardSlot: libelfSlot) }
    }

    /// `true` when a read through a mapping went past the end of the file, which shrank after
    /// it was opened: the SIGBUS guard gave zeros there (`ELFMapping`).
    public var shrankWhileMapped: Bool {
        ELFMapping.faulted(guardSlot) || (libelfSlot != guardSlot && ELFMapping.faulted(libelfSlot))
    }

    /// libelf's handle of the file, made on first use when the open did not need it: over a
    /// mapping of its own (`ELFMapping.begin`), or over `memory`. `nil` when libelf refuses the
    /// file (`libelfMessage()` says why).
    func libelf() -> OpaquePointer? {
        if let libelfHandle { return libelfHandle }
        if fd >= 0 {
            guard let (elf, slot) = ELFMapping.begin(fd) else { return nil }
            libelfHandle = elf
            libelfSlot = slot
        } else if let base = memory?.baseAddress {
            _ = elf_version(UInt32(EV_CURRENT))
            libelfHandle = elf_memory(base.assumingMemoryBound(to: CChar.self), memory?.count ?? 0)
        }
        return libelfHandle
    }

    private struct FileStamp: Equatable {
        var size: Int
        var seconds: Int
        var nanoseconds: Int
        init(_ info: stat) {
            size = Int(info.st_size)
            seconds = Int(info.st_mtim.tv_sec)
            nanoseconds = Int(info.st_mtim.tv_nsec)
        }
    }

    private static func openError(_ code: Int32) -> ELFOpenError {
        let reason: ELFOpenFailure = code == ENOENT || code == ENOTDIR ? .missing : .unreadable
        return ELFOpenError(reason, String(cString: strerror(code)).lowercased())
    }

    private static func requireRegular(_ info: stat) throws(ELFOpenError) {
        guard info.st_mode & S_IFMT == S_IFREG else {
            let what = info.st_mode & S_IFMT == S_IFDIR ? "is a directory" : "not a regular file"
            throw ELFOpenError(.notRegularFile, what)
        }
        guard info.st_size > 0 else { throw ELFOpenError(.notELF, "empty file, not ELF") }
    }

    /// Checks the first `count` (at most 16) bytes of the file: ELF magic, class, data encoding.
    private static func checkIdentification(_ magic: UnsafeRawBufferPointer, count: Int) throws(ELFOpenError) {
        guard count > 0 else { throw ELFOpenError(.notELF, "empty file, not ELF") }
        guard count == 16, magic.count >= 16 else {
            let elfPrefix = magic.prefix(min(count, 4)).elementsEqual([0x7f, 0x45, 0x4c, 0x46].prefix(min(count, 4)))
            throw elfPrefix
                ? ELFOpenError(.malformed, "truncated ELF identification (\(count) bytes)")
                : ELFOpenError(.notELF, "not an ELF file")
        }
        guard magic[0] == 0x7f, magic[1] == 0x45, magic[2] == 0x4c, magic[3] == 0x46 else {
            let kind = magic.starts(with: Array("!<arch>\n".utf8)) ? " (an ar archive)" : ""
            throw ELFOpenError(.notELF, "not an ELF file\(kind)")
        }
        guard magic[4] == 1 || magic[4] == 2 else { throw ELFOpenError(.malformed, "invalid ELF class \(magic[4])") }
        guard magic[5] == 1 || magic[5] == 2 else {
            throw ELFOpenError(.malformed, "invalid ELF data encoding \(magic[5])")
        }
    }

    static func libelfMessage() -> String {
        guard let message = elf_errmsg(-1) else { return "unknown libelf error" }
        return String(cString: message).lowercased()
    }

    func note(_ message: String, offset: UInt64? = nil, value: String? = nil) {
        diagnostics.append(ELFFormatError(message, offset: offset, value: value))
    }

    /// `true` when `size` bytes at `offset` lie inside the file, without overflow.
    public func contains(offset: UInt64, size: UInt64) -> Bool {
        let (end, overflow) = offset.addingReportingOverflow(size)
        return !overflow && end <= fileSize
    }

    private func readProgramHeaders(_ header: ELFHeader, elf: OpaquePointer) {
        var count = 0
        guard elf_getphdrnum(elf, &count) == 0 else {
            note("unusable program header count: \(Self.libelfMessage())")
            return
        }
        let entrySize = UInt64(is64 ? 56 : 32)
        if count == 0 && header.programHeaderCount != 0 {
            note(
                "program header table outside the file", offset: header.programHeaders,
                value: "\(header.programHeaderCount) entries")
            return
        }
        guard count > 0 else { return }
        if header.programHeaderSize != UInt16(entrySize) {
            note("invalid e_phentsize", value: "\(header.programHeaderSize)")
        }
        guard contains(offset: header.programHeaders, size: UInt64(count) * entrySize) else {
            note("program header table outside the file", offset: header.programHeaders, value: "\(count) entries")
            return
        }
        var read: [ELFSegment] = []
        read.reserveCapacity(count)
        defer { segments = read }
        for index in 0..<Int32(count) {
            var phdr = GElf_Phdr()
            guard gelf_getphdr(elf, index, &phdr) != nil else {
                note("unreadable program header \(index): \(Self.libelfMessage())")
                continue
            }
            read.append(
                ELFSegment(
                    type: phdr.p_type, flags: phdr.p_flags, offset: phdr.p_offset,
                    virtualAddress: phdr.p_vaddr, fileSize: phdr.p_filesz, memorySize: phdr.p_memsz))
        }
    }

    private func readSectionHeaders(_ header: ELFHeader, elf: OpaquePointer) {
        var count = 0
        guard elf_getshdrnum(elf, &count) == 0 else {
            note("unusable section header count: \(Self.libelfMessage())")
            return
        }
        let entrySize = UInt64(is64 ? 64 : 40)
        if header.sectionHeaders != 0 && header.sectionHeaderSize != UInt16(entrySize) {
            note("invalid e_shentsize", value: "\(header.sectionHeaderSize)")
        }
        if count == 0 && header.sectionHeaders != 0
            && (header.sectionHeaderCount != 0 || !contains(offset: header.sectionHeaders, size: entrySize))
        {
            note(
                "section header table outside the file", offset: header.sectionHeaders,
                value: "\(header.sectionHeaderCount) entries")
            return
        }
        guard count > 0 else { return }
        guard contains(offset: header.sectionHeaders, size: UInt64(count) * entrySize) else {
            note("section header table outside the file", offset: header.sectionHeaders, value: "\(count) entries")
            return
        }
        var namesIndex = 0
        if elf_getshdrstrndx(elf, &namesIndex) != 0 || namesIndex >= count {
            note("invalid e_shstrndx", value: "\(header.sectionNamesIndex)")
            namesIndex = 0
        }
        // Built locally and stored once: appending to the stored property checks exclusive
        // access for every section.
        let table = SectionNames.table
        // How far past each name its string table may be read (for word-sized reads): the
        // section's size, when libelf hands out its bytes as they are in the file.
        var namesSize = 0
        var namesHeader = GElf_Shdr()
        if namesIndex != 0, let scn = elf_getscn(elf, namesIndex), gelf_getshdr(scn, &namesHeader) != nil,
            namesHeader.sh_type == UInt32(SHT_STRTAB), namesHeader.sh_flags & UInt64(SHF_COMPRESSED) == 0
        {
            namesSize = Int(clamping: namesHeader.sh_size)
        }
        var read: [ELFSection] = []
        var hashes: [UInt32] = []
        read.reserveCapacity(count)
        hashes.reserveCapacity(count)
        for index in 0..<count {
            var shdr = GElf_Shdr()
            guard let scn = elf_getscn(elf, index), gelf_getshdr(scn, &shdr) != nil else {
                note("unreadable section header \(index): \(Self.libelfMessage())")
                continue
            }
            var name = ""
            var hash = SectionNames.emptyHash
            if namesIndex != 0, let cName = elf_strptr(elf, namesIndex, Int(shdr.sh_name)) {
                let offset = Int(shdr.sh_name)
                (name, hash) = SectionNames.name(
                    cName, readable: offset < namesSize ? namesSize - offset : 0, in: table)
            }
            read.append(
                ELFSection(
                    index: index, name: name, type: SectionType(shdr.sh_type), flags: shdr.sh_flags,
                    address: shdr.sh_addr, offset: shdr.sh_offset, size: shdr.sh_size,
                    link: shdr.sh_link, info: shdr.sh_info, entrySize: shdr.sh_entsize))
            hashes.append(hash)
        }
        sections = read
        sectionNameHashes = hashes
    }

    /// The program and section headers of a file with plain headers (`plainHeader`), read from
    /// `image` as libelf reads them: every entry lies inside the file, so none is diagnosed.
    /// Section names are those `elf_strptr` gives: a name whose offset lies in the section-name
    /// table (an uncompressed `SHT_STRTAB` inside the file) and is followed by a NUL there;
    /// else "".
    private func readPlainHeaders<Layout: ELFLayout>(_ header: ELFHeader, _: Layout.Type) {
        guard let base = image.baseAddress else { return }
        let programCount = Int(header.programHeaderCount)
        if programCount > 0 {
            let reader = RawReader<Layout>(base: base + Int(header.programHeaders))
            var read: [ELFSegment] = []
            read.reserveCapacity(programCount)
            for index in 0..<programCount {
                let at = index * Int(header.programHeaderSize)
                read.append(
                    ELFSegment(
                        type: reader.u32(at), flags: reader.u32(at + 4, at + 24), offset: reader.word(at + 8, at + 4),
                        virtualAddress: reader.word(at + 16, at + 8), fileSize: reader.word(at + 32, at + 16),
                        memorySize: reader.word(at + 40, at + 20)))
            }
            segments = read
        }
        let count = Int(header.sectionHeaderCount)
        guard count > 0 else { return }
        let reader = RawReader<Layout>(base: base + Int(header.sectionHeaders))
        let entrySize = Int(header.sectionHeaderSize)
        // The name table's bytes (`namesSize` of them), when names can be read from it.
        var names: UnsafeRawPointer?
        var namesSize = 0
        // `true` when the table ends with a NUL, so that every name inside it ends in it.
        var namesEndInNUL = false
        let namesIndex = Int(header.sectionNamesIndex)
        if namesIndex != 0 {
            let at = namesIndex * entrySize
            let offset = reader.word(at + 24, at + 16)
            let size = reader.word(at + 32, at + 20)
            if reader.u32(at + 4) == UInt32(SHT_STRTAB), contains(offset: offset, size: size), size > 0 {
                names = UnsafeRawPointer(base + Int(offset))
                namesSize = Int(size)
                namesEndInNUL = base.load(fromByteOffset: Int(offset) + namesSize - 1, as: UInt8.self) == 0
            }
        }
        let table = SectionNames.table
        var read: [ELFSection] = []
        var hashes: [UInt32] = []
        read.reserveCapacity(count)
        hashes.reserveCapacity(count)
        for index in 0..<count {
            let at = index * entrySize
            let nameOffset = Int(reader.u32(at))
            var name = ""
            var hash = SectionNames.emptyHash
            if let names, nameOffset < namesSize,
                namesEndInNUL || memchr(names + nameOffset, 0, namesSize - nameOffset) != nil
            {
                (name, hash) = SectionNames.name(
                    (names + nameOffset).assumingMemoryBound(to: CChar.self), readable: namesSize - nameOffset,
                    in: table)
            }
            read.append(
                ELFSection(
                    index: index, name: name, type: SectionType(reader.u32(at + 4)), flags: reader.word(at + 8, at + 8),
                    address: reader.word(at + 16, at + 12), offset: reader.word(at + 24, at + 16),
                    size: reader.word(at + 32, at + 20), link: reader.u32(at + 40, at + 24),
                    info: reader.u32(at + 44, at + 28), entrySize: reader.word(at + 56, at + 36)))
            hashes.append(hash)
        }
        sections = read
        sectionNameHashes = hashes
    }

    // MARK: Bytes

    /// The file bytes of `section` in file byte order, or `nil` (with a diagnostic) when they
    /// lie outside the file. `SHT_NOBITS` and empty sections give `nil` without a diagnostic.
    public func bytes(of section: ELFSection) -> ByteReader? {
        guard section.hasFileBytes else { return nil }
        guard contains(offset: section.offset, size: section.size) else {
            note(
                "section \(section.name.isEmpty ? "#\(section.index)" : section.name) outside the file",
                offset: section.offset, value: "size \(section.size)")
            return nil
        }
        return bytes(offset: section.offset, size: section.size)
    }

    /// `size` bytes at file `offset`, or `nil` when they are not all inside the file.
    public func bytes(offset: UInt64, size: UInt64) -> ByteReader? {
        guard size > 0, contains(offset: offset, size: size), let count = Int(exactly: size),
            let start = Int(exactly: offset)
        else { return nil }
        // `image` is the whole file, but a file given to libelf may have been read shorter.
        guard start <= image.count - count, let base = image.baseAddress else { return nil }
        return ByteReader(UnsafeRawBufferPointer(start: base + start, count: count), bigEndian: isBigEndian)
    }

    /// The file offset at which virtual address `address` is stored, through the `PT_LOAD`
    /// segments; `nil` when no segment maps it from the file.
    public func fileOffset(ofAddress address: UInt64) -> UInt64? {
        for segment in segments where segment.type == ELFSegment.load {
            if let offset = segment.fileOffset(of: address) { return offset }
        }
        return nil
    }

    /// The section whose address range holds `address`, preferring allocated sections.
    public func section(containing address: UInt64) -> ELFSection? {
        sections.first {
            $0.isAllocated && $0.type != .nobits && address >= $0.address
                && address - $0.address < $0.size
        }
    }

    /// The first section named `name`, or `nil`.
    public func section(named name: String) -> ELFSection? {
        guard let hash = SectionNames.hash(of: name) else { return sections.first { $0.name == name } }
        // An ASCII name equals another ASCII name only byte for byte, so only a section whose
        // hash matches (or whose name is not ASCII) is compared.
        for (index, known) in sectionNameHashes.enumerated()
        where known == hash || known == SectionNames.nonASCII {
            if sections[index].name == name { return sections[index] }
        }
        return nil
    }

    /// Sections of one type, in file order.
    public func sections(ofType type: SectionType) -> [ELFSection] {
        sections.filter { $0.type == type }
    }

    /// `true` when the file has a `.symtab` (it is not stripped).
    public var hasSymbolTable: Bool { sections.contains { $0.type == .symtab } }

    /// `e_type` refined with the interpreter and `DF_1_PIE`.
    public var objectKind: ELFObjectKind {
        switch type {
        case 1: return .relocatable
        case 2: return .executable
        case 3:
            let pie = dynamicFlags1 & 0x0800_0000 != 0
            return pie || interpreter != nil ? .pieExecutable : .sharedLibrary
        case 4: return .core
        default: return .unknown
        }
    }

    private func readInterpreter() -> String? {
        guard let segment = segments.first(where: { $0.type == ELFSegment.interp }),
            segment.fileSize > 0, segment.fileSize < 4096
        else { return nil }
        guard let reader = bytes(offset: segment.offset, size: segment.fileSize) else {
            note("PT_INTERP outside the file", offset: segment.offset)
            return nil
        }
        return reader.losslessString(at: 0) ?? LosslessUTF8.string(reader.bytes)
    }
}
