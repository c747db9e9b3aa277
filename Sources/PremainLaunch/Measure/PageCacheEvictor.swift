import Glibc
import PremainAudit
import PremainModel

/// Evicts files from the page cache before a cold launch and checks how much stayed.
///
/// For each file: `fdatasync` (dirty pages cannot be dropped), then
/// `posix_fadvise(POSIX_FADV_DONTNEED)` over the whole file, then `mincore` on a fresh
/// read-only mapping to count pages still resident. Pages mapped by running processes (libc,
/// the loader) stay resident: the kernel does not drop mapped pages.
public enum PageCacheEvictor {
    /// Residency of one file right after eviction.
    public struct Residency: Codable, Equatable, Sendable {
        public var path: String
        public var pages: Int
        public var residentPages: Int
        /// Why the file could not be evicted or checked; `nil` when it was.
        public var error: String?

        public init(path: String, pages: Int, residentPages: Int, error: String? = nil) {
            self.path = path
            self.pages = pages
            self.residentPages = residentPages
            self.error = error
        }
    }

    /// Evicts every file of `paths` and reports what stayed resident, in the same order.
    public static func evict(_ paths: [String]) -> [Residency] {
        paths.map(evictOne)
    }

    /// Pages of `path` in the page cache now, without evicting. `nil` when unreadable.
    public static func residency(of path: String) -> Residency? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return count(fd: fd, path: path)
    }

    static func evictOne(_ path: String) -> Residency {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            return Residency(path: path, pages: 0, residentPages: 0, error: "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        _ = fdatasync(fd)
        let advice = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        var result = count(fd: fd, path: path)
        if advice != 0 { result.error = "posix_fadvise: \(String(cString: strerror(advice)))" }
        return result
    }

    static func count(fd: Int32, path: String) -> Residency {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            return Residency(path: path, pages: 0, residentPages: 0, error: "cannot stat")
        }
        let size = Int(info.st_size)
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard size > 0, pageSize > 0 else { return Residency(path: path, pages: 0, residentPages: 0) }
        let pages = (size + pageSize - 1) / pageSize
        guard let mapping = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), mapping != MAP_FAILED else {
            return Residency(path: path, pages: pages, residentPages: 0, error: "cannot map to check residency")
        }
        defer { munmap(mapping, size) }
        var vector = [UInt8](repeating: 0, count: pages)
        guard mincore(mapping, size, &vector) == 0 else {
            return Residency(path: path, pages: pages, residentPages: 0, error: "mincore: \(String(cString: strerror(errno)))")
        }
        return Residency(path: path, pages: pages, residentPages: vector.filter { $0 & 1 != 0 }.count)
    }
}
