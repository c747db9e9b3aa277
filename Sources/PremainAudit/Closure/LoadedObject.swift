import ELFKit
import PremainModel
import PremainSystem

/// One object mapped during a walk, with its open file.
final class LoadedObject {
    let file: FileFacts
    /// Host path as built.
    let path: String
    /// The path as the program sees it (inside the sysroot).
    let logicalPath: String
    let soname: String?
    /// Names it matches: requested names and the path it was loaded under (a few, so a list).
    var names: [String]
    var requestedName: String
    var foundVia: FoundVia
    var searchDirectory: String?
    var depth: Int
    /// Index of the object whose `DT_NEEDED` loaded it (`l_loader`); `nil` for the program and
    /// the interpreter.
    var loader: Int?
    /// Index of the first object that needed it, for the tree.
    var neededBy: Int?
    /// Position in breadth-first order (`nil` until reached through `DT_NEEDED`).
    var order: Int?
    /// `$ORIGIN`: the directory of the path it was loaded under (for the program: of its real
    /// path, as `/proc/self/exe` gives it). Worked out when first asked for: most objects
    /// expand no `$ORIGIN`.
    private(set) lazy var origin: String? = originDirectory ?? originFile.map { LocalFiles.directory(of: $0) }
    private let originDirectory: String?
    private let originFile: String?
    private var rpathCache: [String]?
    private var runpathCache: [String]?

    init(file: FileFacts, path: String, logicalPath: String, requestedName: String, foundVia: FoundVia,
         searchDirectory: String?, depth: Int, loader: Int?, origin: String? = nil, originOf originPath: String? = nil) {
        self.file = file
        self.path = path
        self.logicalPath = logicalPath
        self.soname = file.soname
        self.names = requestedName == logicalPath ? [requestedName] : [requestedName, logicalPath]
        self.requestedName = requestedName
        self.foundVia = foundVia
        self.searchDirectory = searchDirectory
        self.depth = depth
        self.loader = loader
        self.originDirectory = origin
        self.originFile = origin == nil ? originPath : nil
    }

    /// `DT_RPATH` directories, tokens expanded; `[]` when absent or when `DT_RUNPATH` is
    /// present (glibc's `elf_get_dynamic_info` drops `DT_RPATH` then).
    func rpath(_ platform: LoaderPlatform) -> [String] {
        if let rpathCache { return rpathCache }
        let value = file.hasRunpath ? [] : expand(file.rpath, platform)
        rpathCache = value
        return value
    }

    /// `DT_RUNPATH` directories, tokens expanded; `[]` when absent.
    func runpath(_ platform: LoaderPlatform) -> [String] {
        if let runpathCache { return runpathCache }
        let value = expand(file.runpath, platform)
        runpathCache = value
        return value
    }

    private func expand(_ elements: [String], _ platform: LoaderPlatform) -> [String] {
        elements.compactMap { element in
            // fillin_rpath: an empty element is the current directory.
            let raw = element.isEmpty ? "." : element
            guard var dir = DynamicStringTokens.expand(raw, origin: origin, lib: platform.libToken,
                                                       platform: platform.platformToken) else { return nil }
            while dir.count > 1 && dir.hasSuffix("/") { dir.removeLast() }
            return dir
        }
    }
}
