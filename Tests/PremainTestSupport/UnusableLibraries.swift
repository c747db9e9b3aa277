import Foundation

/// Folders that make a library premain loads on first use (`CLazyLibraries`: libdw.so.1,
/// libsqlite3.so.0) unusable when put first on `LD_LIBRARY_PATH`: dlopen finds the file of that
/// name there before the system's.
public enum UnusableLibraries {
    /// One folder per way a library can be unusable, each holding a file named `soname`:
    /// `empty` (dlopen fails: "file too short") and `wrong` (a copy of libm: dlopen succeeds,
    /// and none of the functions premain calls is there).
    public static func folders(for soname: String) throws -> [(kind: String, folder: String)] {
        let root = try TemporaryFolders.make("unusable-" + soname)
        let empty = root + "/empty"
        let wrong = root + "/wrong"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: wrong, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: empty + "/" + soname, contents: Data()) else {
            throw CocoaError(.fileWriteUnknown)
        }
        try FileManager.default.copyItem(atPath: try libm(), toPath: wrong + "/" + soname)
        return [("empty", empty), ("wrong", wrong)]
    }

    /// The libm beside the libc this process runs with (found in /proc/self/maps): a real
    /// shared library that is neither libdw nor SQLite.
    static func libm() throws -> String {
        // Read to the end: /proc files have no size, and a read sized by it may stop early.
        let data = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd() ?? Data()
        let maps = String(decoding: data, as: UTF8.self)
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            guard path.hasSuffix("/libc.so.6") else { continue }
            let libm = (path as NSString).deletingLastPathComponent + "/libm.so.6"
            if FileManager.default.fileExists(atPath: libm) { return libm }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "libm.so.6 beside this process's libc"])
    }
}
