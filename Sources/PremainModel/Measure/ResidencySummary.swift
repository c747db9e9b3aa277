/// Pages of one file still resident right after eviction, over the cold runs.
public struct ResidencySummary: Codable, Equatable, Sendable {
    public var path: String
    public var pages: Int
    /// Median over runs of resident pages after eviction.
    public var residentPagesMedian: Double
    public var residentPagesMax: Int
    /// Set when eviction or the check failed.
    public var error: String?

    public init(path: String, pages: Int, residentPagesMedian: Double, residentPagesMax: Int, error: String? = nil) {
        self.path = path
        self.pages = pages
        self.residentPagesMedian = residentPagesMedian
        self.residentPagesMax = residentPagesMax
        self.error = error
    }
}
