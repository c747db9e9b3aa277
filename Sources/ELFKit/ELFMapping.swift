import CELF
import CMapGuard

#if canImport(Glibc)
    import Glibc
#endif

/// Mappings of a file guarded against SIGBUS: premain's own (`map`, which `ELFFile` reads its
/// headers and tables from) or libelf's (`begin`, for libdw and for what only libelf reads).
///
/// A mapping touches only the pages of the tables that are read and copies none of them: the
/// 30 MB `.strtab` of liblldb costs the pages its names live on, where `read` would copy all of
/// it. A file that another process truncates while it is mapped would raise SIGBUS at the first
/// read past its new end; the guard (CMapGuard) puts a page of zeros there instead and counts
/// the fault, which `ELFFile.changedSinceOpen` reports. When the guard has no free slot, the
/// file is read (`ELF_C_READ`) instead of mapped.
public enum ELFMapping {
    /// An `Elf` handle for the open file `fd` and its guard slot (-1 when it is read, not mapped);
    /// `nil` when libelf refuses the file (see `elf_errmsg`).
    public static func begin(_ fd: Int32) -> (elf: OpaquePointer, guardSlot: Int32)? {
        _ = elf_version(UInt32(EV_CURRENT))
        guard let elf = elf_begin(fd, ELF_C_READ_MMAP, nil) else { return nil }
        var size = 0
        if let base = elf_rawfile(elf, &size), size > 0 {
            // libelf reads the file into the heap when it cannot map it; a mapping of the whole
            // file starts on a page, a large heap block never does (malloc's header precedes
            // it). Only a mapping is guarded, and only a guarded mapping gives its pages back.
            guard Int(bitPattern: UnsafeRawPointer(base)) % Int(sysconf(Int32(_SC_PAGESIZE))) == 0 else {
                return (elf, -1)
            }
            let slot = mapguard_register(base, size)
            if slot >= 0 { return (elf, slot) }
        }
        // No guard slot (or nothing mapped): read the file instead.
        elf_end(elf)
        guard let read = elf_begin(fd, ELF_C_READ, nil) else { return nil }
        return (read, -1)
    }

    /// Ends `elf` (unmapping the file) after freeing its guard slot.
    public static func end(_ elf: OpaquePointer, guardSlot: Int32) {
        if guardSlot >= 0 { _ = mapguard_release(guardSlot) }
        elf_end(elf)
    }

    /// Maps the `size` bytes of the open file `fd` read-only, as libelf does, and registers the
    /// mapping with the guard; `nil` when it cannot be mapped or the guard has no free slot (the
    /// caller then reads the file through `begin`).
    public static func map(_ fd: Int32, size: Int) -> (image: UnsafeRawBufferPointer, guardSlot: Int32)? {
        guard size > 0, let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            return nil
        }
        let slot = mapguard_register(base, size)
        guard slot >= 0 else {
            munmap(base, size)
            return nil
        }
        return (UnsafeRawBufferPointer(start: base, count: size), slot)
    }

    /// Frees the guard slot of a mapping made by `map`, then unmaps it.
    public static func unmap(_ image: UnsafeRawBufferPointer, guardSlot: Int32) {
        _ = mapguard_release(guardSlot)
        if let base = image.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), image.count) }
    }

    /// Drops the pages of `elf`'s mapping from the process (`releasePages(_:guardSlot:)`).
    public static func releasePages(_ elf: OpaquePointer, guardSlot: Int32) {
        guard guardSlot >= 0 else { return }
        var size = 0
        guard let base = elf_rawfile(elf, &size), size > 0 else { return }
        releasePages(UnsafeRawBufferPointer(start: base, count: size), guardSlot: guardSlot)
    }

    /// Drops the pages of the guarded mapping `image` from the process (`MADV_DONTNEED`); they
    /// are read again from the page cache when touched. Neither premain nor libelf writes into
    /// the mapping (it is read-only), so nothing is lost. Does nothing for a file that was read,
    /// not mapped (`guardSlot` -1).
    public static func releasePages(_ image: UnsafeRawBufferPointer, guardSlot: Int32) {
        guard guardSlot >= 0, let base = image.baseAddress, !image.isEmpty else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = Int(bitPattern: base) & ~(page - 1)
        let end = Int(bitPattern: base) + image.count
        _ = madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, Int32(MADV_DONTNEED))
    }

    /// `true` when pages of the mapping in `guardSlot` were replaced by zeros (the file shrank).
    public static func faulted(_ guardSlot: Int32) -> Bool {
        guardSlot >= 0 && mapguard_faults(guardSlot) > 0
    }
}
