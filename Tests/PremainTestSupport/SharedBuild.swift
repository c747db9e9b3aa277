import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A build shared by the processes of one test run, removed once the run is over.
public enum SharedBuild {
    /// `NSTemporaryDirectory()/<prefix>-<parent pid>-<parent start time>-<newest source mtime>`:
    /// the same for the XCTest and the swift-testing process of one `swift test`, different for
    /// the next run, and for an edit of `sources` (files or folders, walked).
    public static func folder(_ prefix: String, sources: [String]) -> String {
        let parent = getppid()
        // Field 22 of /proc/PID/stat, the start time: tells a reused pid apart.
        let stat = (try? String(contentsOfFile: "/proc/\(parent)/stat", encoding: .utf8)) ?? ""
        let started =
            stat.lastIndex(of: ")").map { stat[stat.index(after: $0)...].split(separator: " ") }
            .flatMap { $0.count > 19 ? String($0[19]) : nil } ?? "0"
        var newest = 0.0
        for source in sources {
            var files = [source]
            if let walk = FileManager.default.enumerator(atPath: source) {
                files += walk.compactMap { $0 as? String }.map { source + "/" + $0 }
            }
            for file in files {
                let modified =
                    (try? FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date) ?? nil
                newest = max(newest, modified?.timeIntervalSince1970 ?? 0)
            }
        }
        return NSTemporaryDirectory() + "\(prefix)-\(parent)-\(started)-\(Int(newest))"
    }

    /// Runs `build` (which returns an error message, or `nil` on success) unless it already
    /// succeeded for `folder`, under an exclusive lock on `folder.lock`. Returns the message;
    /// `nil` when the folder is built.
    public static func once(in folder: String, _ build: () -> String?) -> String? {
        let lock = open(folder + ".lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard lock >= 0 else { return "cannot open \(folder).lock: errno \(errno)" }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(lock, LOCK_UN) }
        let done = folder + "/.built"
        if FileManager.default.fileExists(atPath: done) { return nil }
        // Gone with the `swift test` that runs both processes (or the shell that ran this one).
        TemporaryFolders.removeWhenGone([folder, folder + ".lock"], pid: getppid())
        if let failure = build() { return failure }
        _ = FileManager.default.createFile(atPath: done, contents: nil)
        return nil
    }
}
