/// A `DT_NEEDED` name `ld.so` would not find.
public struct MissingLibrary: Codable, Sendable, Equatable {
    public var name: String
    /// Path of the object that needs it first.
    public var neededBy: String
    /// Every place looked in, in order: directories (each also with its hwcaps
    /// subdirectories), and `ld.so.cache` as the cache file's path.
    public var searched: [String]
    /// Candidates rejected because their ELF class or machine differs.
    public var wrongClass: [String]

    public init(name: String, neededBy: String, searched: [String], wrongClass: [String]) {
        self.name = name
        self.neededBy = neededBy
        self.searched = searched
        self.wrongClass = wrongClass
    }
}
