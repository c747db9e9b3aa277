import PremainModel

/// One vocabulary for the lab and the field (issue 35): each row of a field report is tagged
/// with the launch premain.json declares for it, so `field report` and `compare`/`pr` over the
/// launch matrix name the same rows. The recorder keeps a launch's executable and its first
/// argument (docs/field-record.md), so a declared launch matches a row when its program's file
/// name is the executable's and its first argument is the row's scenario (a launch without
/// arguments: a row without one). Two launches that differ only after the first argument look
/// the same to the recorder: the first declared is the one named. Pure.
public enum FieldLaunchTags {
    /// The name of the first of `launches` that the launches of `executable` with first argument
    /// `scenario` match; `nil` when none does.
    public static func launch(executable: String, scenario: String?, among launches: [DeclaredLaunch]) -> String? {
        let file = fileName(executable)
        return launches.first { declared in
            guard let program = declared.run.first, fileName(program) == file else { return false }
            return declared.run.dropFirst().first == scenario
        }?.name
    }

    /// `report` with each row's `launch` set from `launches` (rows that match none keep `nil`);
    /// `report` itself when nothing is declared.
    public static func tag(_ report: FieldReport, launches: [DeclaredLaunch]) -> FieldReport {
        guard !launches.isEmpty else { return report }
        var tagged = report
        for index in tagged.rows.indices {
            let row = tagged.rows[index]
            tagged.rows[index].launch = launch(executable: row.executable, scenario: row.scenario, among: launches)
        }
        return tagged
    }

    static func fileName(_ path: String) -> Substring {
        path.split(separator: "/", omittingEmptySubsequences: true).last ?? Substring(path)
    }
}
