import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Facts of the machine the tests run on, read at run time so that no test hard-codes them.
public enum HostFacts {
    /// The running C library's version as glibc states it (`confstr(_CS_GNU_LIBC_VERSION)`,
    /// "glibc 2.36" → "2.36"); `nil` when the C library does not say.
    public static let glibcVersion: String? = {
        var buffer = [CChar](repeating: 0, count: 64)
        guard confstr(Int32(_CS_GNU_LIBC_VERSION), &buffer, buffer.count) > 0 else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard text.hasPrefix("glibc ") else { return nil }
        return String(text.dropFirst("glibc ".count))
    }()

    /// The newest `GLIBC_x.y` version `path` requires, as GNU readelf lists its version needs
    /// (`readelf -V`), "2.34"; `nil` when it requires none or readelf cannot read it.
    public static func newestGlibcRequired(by path: String) -> String? {
        guard let listing = try? Shell.run(["readelf", "-V", "--wide", path]).stdout else { return nil }
        let versions = listing.split(separator: "\n").compactMap { line -> [Int]? in
            guard let range = line.range(of: "Name: GLIBC_") else { return nil }
            let numbers = line[range.upperBound...].prefix { $0.isNumber || $0 == "." }.split(separator: ".").compactMap
            { Int($0) }
            return numbers.count >= 2 ? Array(numbers.prefix(2)) : nil
        }
        return versions.max { $0.lexicographicallyPrecedes($1) }.map { "\($0[0]).\($0[1])" }
    }

    /// The first executable file named `name` in this process's PATH; `nil` when there is none.
    public static func program(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// valgrind in PATH, which the instruction-count tests need (scripts/setup installs it);
    /// `nil` when it is not installed.
    public static let valgrind: String? = program("valgrind")
}
