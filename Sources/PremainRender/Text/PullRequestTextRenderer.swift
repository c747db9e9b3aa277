import PremainModel

/// Renders a `PullRequestReport` for a terminal or a CI log: the verdict and its reasons, the
/// paired comparison (`CompareTextRenderer`) or why nothing was measured, what the folders
/// held that was left out, then the static diff and findings (`DiffTextRenderer`).
public enum PullRequestTextRenderer {
    /// Tables and wrapped lines fit `width` columns (`TextFit.unlimited`: nothing shortened).
    public static func render(_ report: PullRequestReport, width: Int = 100, scope: SourceScope? = nil) -> String {
        var out = "verdict: \(report.verdict.status.rawValue)\n"
        // The comparison's own reasons come with its section below.
        let reasons = report.compare == nil ? report.verdict.reasons : report.diff.verdict.reasons
        for reason in reasons { out += "  - \(TextSafety.display(reason))\n" }
        if let commits = report.commits {
            out += "commits: base \(TextSafety.display(commits.base)), head \(TextSafety.display(commits.head))\n"
        }
        if let reason = report.notMeasured, report.compare != nil {
            out += "\nnot measured: \(TextSafety.display(reason))\n"
        }
        if let rows = report.launches {
            out += "\n" + MatrixText.pullRequestText(rows, width: width, scope: scope)
        }
        if let compare = report.compare {
            let command = report.launches == nil ? (report.command ?? []).joined(separator: " ") : compare.rowLabel
            out += "\nmeasured: \(TextSafety.display(command)), paired with premain compare\n"
            out += CompareTextRenderer.render(compare, width: width, scope: scope)
        } else {
            out += "\nnot measured: \(TextSafety.display(report.notMeasured ?? "unknown reason"))\n"
        }
        for (name, skipped) in [("base", report.skipped.base), ("head", report.skipped.head)] {
            if let summary = skipped.summary { out += "\(name): \(TextSafety.display(summary))\n" }
        }
        out +=
            "\nstatic, \(TextSafety.display(report.diff.base.label)) -> \(TextSafety.display(report.diff.head.label)):\n"
        out += DiffTextRenderer.render(report.diff, width: width, verdict: false)
        return out
    }
}
