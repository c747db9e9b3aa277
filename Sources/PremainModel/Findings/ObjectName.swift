/// How findings and diffs name an object: its soname, else its file name, so that the same
/// library built in two folders has one name.
public enum ObjectName {
    /// The last path component of `path`.
    public static func fileName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        let name = String(path[path.index(after: slash)...])
        return name.isEmpty ? path : name
    }

    public static func of(_ binary: BinaryInventory) -> String {
        binary.header.soname ?? fileName(binary.path)
    }

    public static func of(_ object: ClosureObject) -> String {
        object.soname ?? fileName(object.path)
    }
}
