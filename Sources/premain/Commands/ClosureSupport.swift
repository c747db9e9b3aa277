import PremainAudit
import PremainJudge

/// How `check`, `diff` and `pr` resolve dependency closures: as `premain audit` does (this
/// machine's ld.so.cache and default paths), unused dependencies found, costs not computed.
enum ClosureSupport {
    static let options: ClosureOptions? = RuleInputLoader.resolvingClosures

    /// Every file `input` was read from, or resolved to, that an output may not replace: the
    /// objects (the files of the folders walked) and the libraries of the programs' closures.
    static func inputFiles(_ input: RuleInput) -> [String] {
        input.objects.map(\.path) + input.closures.flatMap { $0.closure.objects.map(\.realPath) }
    }
}
