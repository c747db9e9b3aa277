import PremainAudit
import PremainJudge

/// How `check`, `diff` and `pr` resolve dependency closures: as `premain audit` does (this
/// machine's ld.so.cache and default paths), unused dependencies found, costs not computed.
enum ClosureSupport {
    static let options: ClosureOptions? = RuleInputLoader.resolvingClosures
}
