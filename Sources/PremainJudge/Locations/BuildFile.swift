import PremainModel
import PremainSystem

/// The build file at a source root, and the line in it that names a target or a library:
/// where code scanning shows a finding about linking (dependencies, relocations, exports,
/// the closure), which has no line of its own in the sources.
public struct BuildFile: Sendable, Equatable {
    /// The names looked for at the root, in this order.
    public static let names = ["Package.swift", "CMakeLists.txt", "meson.build", "Makefile"]

    /// Absolute path.
    public var path: String
    public var lines: [String]

    public init(path: String, text: String) {
        self.path = path
        self.lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The first of `names` that is a readable text file in `root`; `nil` when there is none.
    public static func find(in root: String) -> BuildFile? {
        for name in names {
            let path = (root == "/" ? "" : root) + "/" + name
            guard LocalFiles.kind(path) == .file, let text = LocalFiles.readText(path) else { continue }
            return BuildFile(path: path, text: text)
        }
        return nil
    }

    /// Words of the lines that declare a target: SwiftPM's `.executable(`, `.library(`,
    /// `.target(`, CMake's `add_executable(`/`add_library(`, Meson's `executable(`/`library(`.
    static let declarationWords = ["executable", "library", "target", "Target", "product"]

    /// The line that best names one of `names` (most specific first): for each name in turn, the
    /// first line that declares a target and holds it quoted (`.target(name: "app")`,
    /// `executable('app', …)`), else any line holding it quoted, else a declaring line holding
    /// it as a whole word (`add_executable(app main.c)`), else any line outside comments holding
    /// it as a word (`-lfoo`, `app: main.o`). Line 1 when none does.
    public func line(naming names: [String]) -> Int {
        for name in names where !name.isEmpty {
            let quoted: (String) -> Bool = { line in
                line.contains("\"" + name + "\"") || line.contains("'" + name + "'")
            }
            let word: (String) -> Bool = { line in !Self.isComment(line) && Self.containsWord(name, in: line) }
            for matches in [quoted, word] {
                if let index = lines.firstIndex(where: { matches($0) && Self.declares($0) })
                    ?? lines.firstIndex(where: matches)
                {
                    return index + 1
                }
            }
        }
        return 1
    }

    /// The names a build file would use for `object`: the file name itself, then the target's
    /// name without `lib` and the `.so`/`.a` suffix, and `-l<name>` for a library
    /// (`libfoo.so.1` → `libfoo.so.1`, `foo`, `-lfoo`, `libfoo`).
    public static func targetNames(of object: String) -> [String] {
        let file = ObjectName.fileName(object)
        var stem = file
        if file.hasSuffix(".a") {
            stem = String(file.dropLast(2))
        } else if let range = file.firstRange(of: ".so"),
            range.upperBound == file.endIndex || file[range.upperBound] == "."
        {
            stem = String(file[..<range.lowerBound])
        }
        guard stem != file, stem.hasPrefix("lib"), stem.count > 3 else { return [file] }
        let name = String(stem.dropFirst(3))
        return [file, name, "-l" + name, stem]
    }

    static func declares(_ line: String) -> Bool {
        declarationWords.contains { line.contains($0) }
    }

    static func isComment(_ line: String) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        return trimmed.hasPrefix("#") || trimmed.hasPrefix("//")
    }

    /// `true` when `word` occurs in `line` between characters that cannot be part of a name.
    static func containsWord(_ word: String, in line: String) -> Bool {
        func isNameCharacter(_ c: Character?) -> Bool {
            guard let c else { return false }
            return c.isLetter || c.isNumber || c == "_" || c == "." || c == "-" || c == "+"
        }
        var searchStart = line.startIndex
        while let range = line[searchStart...].firstRange(of: word) {
            let before = range.lowerBound == line.startIndex ? nil : line[line.index(before: range.lowerBound)]
            let after = range.upperBound == line.endIndex ? nil : line[range.upperBound]
            if !isNameCharacter(before), !isNameCharacter(after) { return true }
            searchStart = line.index(after: range.lowerBound)
        }
        return false
    }
}
