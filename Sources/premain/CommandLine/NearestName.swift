/// "Did you mean": the declared name nearest to a mistyped one, as git, cargo and swift suggest.
enum NearestName {
    /// The candidate nearest to `word` by edit distance (insertions, deletions, substitutions
    /// and swaps of two neighbours each cost 1), when it is near enough to be a typo: at most
    /// one edit for names up to 4 characters, two up to 8, three beyond (leading dashes are not
    /// counted). `nil` when none is that near; the first of equally near candidates wins.
    static func suggestion(for word: String, among candidates: [String]) -> String? {
        let typed = Array(word.drop { $0 == "-" }.lowercased())
        guard !typed.isEmpty else { return nil }
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != word {
            let name = Array(candidate.drop { $0 == "-" }.lowercased())
            let limit = name.count <= 4 ? 1 : name.count <= 8 ? 2 : 3
            let distance = Self.distance(typed, name)
            guard distance <= limit, distance < (best?.distance ?? .max) else { continue }
            best = (candidate, distance)
        }
        return best?.name
    }

    /// `message` with `; did you mean 'X'?` when a candidate is near `word`.
    static func message(_ message: String, for word: String, among candidates: [String]) -> String {
        guard let near = suggestion(for: word, among: candidates) else { return message }
        return message + "; did you mean '\(near)'?"
    }

    /// The optimal-string-alignment distance (Damerau–Levenshtein without repeated edits of
    /// one substring) between `a` and `b`.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
