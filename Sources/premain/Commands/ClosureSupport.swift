import PremainCore

/// Where `check` and `diff` get dependency closures from. The closure resolver is not in
/// this build yet, so programs are checked without closure facts; closure rules still run
/// on audit reports that carry `binaries[].closure`.
enum ClosureSupport {
    static let provider: RuleInputLoader.ClosureProvider? = nil
}
