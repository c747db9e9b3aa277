import Foundation
import PremainTestSupport
import Testing

/// Issue 36, item 16: docs/architecture.md's table of targets is Package.swift's: every target
/// has its row, and each row names the target's dependencies.
@Suite struct ArchitectureTableTests {
    /// The short names the table uses for premain's own targets.
    static let short = [
        "PremainModel": "Model", "PremainSystem": "System", "PremainAudit": "Audit", "PremainLaunch": "Launch",
        "PremainJudge": "Judge", "PremainHistory": "History", "PremainPullRequest": "PullRequest",
        "PremainRender": "Render", "PremainField": "Field",
    ]

    /// Package.swift's targets (not system libraries, test targets or the tests' support
    /// target) and their dependencies, read from its text.
    static func packageTargets() throws -> [String: Set<String>] {
        let text = try String(contentsOfFile: Repository.root + "/Package.swift", encoding: .utf8)
        var targets: [String: Set<String>] = [:]
        var rest = Substring(text)
        while let start = rest.range(of: #"\.(target|executableTarget)\("#, options: .regularExpression) {
            // The declaration up to its closing parenthesis.
            var depth = 0
            var end = start.upperBound
            var index = text.index(before: start.upperBound)
            while index < text.endIndex {
                if text[index] == "(" { depth += 1 }
                if text[index] == ")" {
                    depth -= 1
                    if depth == 0 {
                        end = index
                        break
                    }
                }
                index = text.index(after: index)
            }
            let declaration = String(text[start.lowerBound..<end])
            rest = text[end...]
            guard let name = Self.firstQuoted(after: "name: ", in: declaration),
                name != "PremainTestSupport"
            else { continue }
            var dependencies: Set<String> = []
            if let list = declaration.range(of: "dependencies: ["),
                let close = declaration[list.upperBound...].firstIndex(of: "]")
            {
                dependencies = Set(
                    declaration[list.upperBound..<close].split(separator: "\"", omittingEmptySubsequences: false)
                        .enumerated()
                        .filter { $0.offset % 2 == 1 }.map { String($0.element) })
            }
            targets[name] = dependencies
        }
        return targets
    }

    static func firstQuoted(after label: String, in text: String) -> String? {
        guard let range = text.range(of: label + "\"") else { return nil }
        return text[range.upperBound...].split(separator: "\"", maxSplits: 1).first.map(String.init)
    }

    /// The table's rows: target and the names in its "depends on" cell.
    static func tableRows() throws -> [String: Set<String>] {
        let text = try String(contentsOfFile: Repository.root + "/docs/architecture.md", encoding: .utf8)
        var rows: [String: Set<String>] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count > 3 else { continue }
            let name = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let long = Dictionary(uniqueKeysWithValues: short.map { ($0.value, $0.key) })
            var dependencies: Set<String> = []
            if !cells[2].hasPrefix("nothing") {
                for word in cells[2].split(separator: ",") {
                    let trimmed = word.trimmingCharacters(in: .whitespaces)
                    dependencies.insert(long[trimmed] ?? trimmed)
                }
            }
            rows[name] = dependencies
        }
        return rows
    }

    static func cell(_ dependencies: Set<String>) -> String {
        dependencies.isEmpty ? "nothing" : dependencies.map { short[$0] ?? $0 }.sorted().joined(separator: ", ")
    }

    @Test func tableMatchesPackageSwift() throws {
        let targets = try Self.packageTargets()
        let rows = try Self.tableRows()
        #expect(targets.count >= 16, "\(targets.keys.sorted())")
        #expect(targets["PremainRender"]?.contains("PremainModel") == true)
        var problems: [String] = []
        for (name, dependencies) in targets.sorted(by: { $0.key < $1.key }) {
            guard let row = rows[name] else {
                problems.append(
                    "Package.swift has the target \(name), docs/architecture.md's table has no row for it: add "
                        + "| `\(name)` | \(Self.cell(dependencies)) | <what it holds> |")
                continue
            }
            if row != dependencies {
                problems.append(
                    "docs/architecture.md's row of \(name) says it depends on \(Self.cell(row)); Package.swift says: "
                        + "| `\(name)` | \(Self.cell(dependencies)) |")
            }
        }
        for name in rows.keys.sorted() where targets[name] == nil {
            problems.append("docs/architecture.md's table has a row for \(name), which Package.swift does not declare")
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
