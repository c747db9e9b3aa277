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
    /// What the run knows of the file (`nil` for the program, which is not searched for).
    let placed: PlacedObject?
    /// Run-wide numbers (`ObjectStore.nameNumber`) of the names it matches: requested names and
    /// the path it was loaded under (a few, so a list).
    var names: [Int]
    /// Run-wide numbers of its `DT_NEEDED` names and `DT_SONAME`, and of its file identity.
    let neededNumbers: [Int]
    let sonameNumber: Int?
    let fileNumber: Int
    /// `true` when it or an object up its loader chain has `DT_RPATH` (kept: no `DT_RUNPATH`).
    var rpathInChain = false
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
    private(set) lazy var origin: String? =
        originDirectory ?? originFile.map { LocalFiles.directory(of: $0) } ?? originOfProgram?()
    private let originDirectory: String?
    private let originFile: String?
    private let originOfProgram: (() -> String)?
    private var rpathCache: [String]?
    private var runpathCache: [String]?

    /// `names`: the numbers of `requestedName` and of `logicalPath` (once when they are equal).
    init(
        file: FileFacts, placed: PlacedObject?, names: [Int], neededNumbers: [Int], sonameNumber: Int?, fileNumber: Int,
        path: String, logicalPath: String, requestedName: String, foundVia: FoundVia,
        searchDirectory: String?, depth: Int, loader: Int?, origin: String? = nil, originOf originPath: String? = nil,
        originOfProgram: (() -> String)? = nil
    ) {
        self.file = file
        self.placed = placed
        self.path = path
        self.logicalPath = logicalPath
        self.soname = file.soname
        self.names = names
        self.neededNumbers = neededNumbers
        self.sonameNumber = sonameNumber
        self.fileNumber = fileNumber
        self.requestedName = requestedName
        self.foundVia = foundVia
        self.searchDirectory = searchDirectory
        self.depth = depth
        self.loader = loader
        self.originDirectory = origin
        self.originFile = origin == nil ? originPath : nil
        self.originOfProgram = originOfProgram
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
            guard
                var dir = DynamicStringTokens.expand(
                    raw, origin: origin, lib: platform.libToken,
                    platform: platform.platformToken)
            else { return nil }
            while dir.count > 1 && dir.hasSuffix("/") { dir.removeLast() }
            return dir
        }
    }
}

extension LoadedObject {
    /// An object found by a search or as the interpreter, known to the run as `placed`.
    convenience init(
        _ placed: PlacedObject, names: [Int], path: String, logicalPath: String, requestedName: String,
        foundVia: FoundVia, searchDirectory: String?, depth: Int, loader: Int?, originOf originPath: String
    ) {
        self.init(
            file: placed.facts, placed: placed, names: names, neededNumbers: placed.needed,
            sonameNumber: placed.soname, fileNumber: placed.fileNumber, path: path, logicalPath: logicalPath,
            requestedName: requestedName, foundVia: foundVia, searchDirectory: searchDirectory, depth: depth,
            loader: loader, originOf: originPath)
    }
}
