import PremainJudge

/// Where `check` and `diff` get dependency closures from: the closure resolver, as
/// `premain audit` uses it (this machine's ld.so.cache and default paths). One provider for
/// the run, so `diff`'s two sides share the resolver and its read libraries.
enum ClosureSupport {
    static let provider: RuleInputLoader.ClosureProvider? = RuleInputLoader.resolvingClosures
}
