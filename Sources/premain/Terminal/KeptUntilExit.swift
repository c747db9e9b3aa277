/// Values a command ends with that are not freed: the process exits right after, and the
/// kernel takes its memory back at once, where freeing a folder's audit report, its closures
/// and the libraries they read releases every string and array one by one (about 18 M
/// instructions for /usr/lib/x86_64-linux-gnu). Compilers do the same (`clang -disable-free`).
enum KeptUntilExit {
    /// Touched only by the command on the main thread.
    nonisolated(unsafe) private static var values: [Any] = []

    static func keep(_ value: consuming some Any) {
        values.append(value)
    }
}
