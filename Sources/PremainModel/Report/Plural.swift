/// Counted nouns in every message and report: "1 object", "3 objects", "1 entry", "2 entries".
/// The one rule of plurals, so no text says "1 objects".
public enum Plural {
    /// `count` and the noun: `singular` for 1 (and -1), else `plural` (`singular` + "s" when
    /// not given).
    public static func count(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) " + noun(count, singular, plural)
    }

    /// The noun alone, for a count written elsewhere ("+2 objects" after a signed count).
    public static func noun(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        abs(count) == 1 ? singular : plural ?? singular + "s"
    }
}
