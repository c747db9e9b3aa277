import ELFKit
import PremainModel

/// A glibc version such as 2.36, comparable.
public struct GlibcVersion: Codable, Sendable, Equatable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// Parses `GLIBC_2.36` or `2.36` (and `GLIBC_2.2.5` as 2.2); `nil` for anything else.
    public init?(_ text: String) {
        var text = Substring(text)
        if text.hasPrefix("GLIBC_") { text = text.dropFirst(6) }
        let parts = text.split(separator: ".")
        guard parts.count >= 2, let major = Int(parts[0]), let minor = Int(parts[1]) else { return nil }
        self.init(major: major, minor: minor)
    }

    public var description: String { "\(major).\(minor)" }

    public static func < (lhs: GlibcVersion, rhs: GlibcVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    /// The first glibc whose loader applies `DT_RELR` (`-z pack-relative-relocs`).
    public static let relrSupport = GlibcVersion(major: 2, minor: 36)

    /// The newest `GLIBC_2.x` version `libc.so.6` itself defines (read its verdefs); `nil`
    /// when the file is not a readable glibc.
    public static func definedBy(libcPath: String) -> GlibcVersion? {
        guard let file = try? ELFFile(path: libcPath), let versions = file.symbolVersions else { return nil }
        return versions.defined.compactMap(GlibcVersion.init).max()
    }

    /// The newest `GLIBC_2.x` version `path` requires of libc (verneeds): a lower bound of
    /// the glibc it was linked against. `nil` when it requires none.
    public static func requiredBy(path: String) -> GlibcVersion? {
        guard let file = try? ELFFile(path: path), let versions = file.symbolVersions else { return nil }
        return versions.required.values.joined().compactMap(GlibcVersion.init).max()
    }
}
