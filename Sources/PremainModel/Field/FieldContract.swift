/// What the figures of a field report are of: who was measured, from which instant to which,
/// with which clock, and what was left out (with counts) or cannot be seen at all.
public struct FieldContract: Codable, Equatable, Sendable {
    public var population: FieldPopulation
    /// The instant a launch starts: the launcher's clock just before execve, or the estimate.
    public var start: String
    /// The instant it ends: main (`la_preinit`), or a mark.
    public var end: String
    /// Launches by birth clock, in `FieldClockSource` order.
    public var clockSources: [FieldClockCount]
    /// What was read but left out, with counts, in `FieldExclusion` order (zero counts included),
    /// then one entry per mark name for launches without it.
    public var exclusions: [FieldExclusionCount]
    /// Programs the recorder cannot see: never in a record, so never counted.
    public var unseen: [String]
    public var thresholds: FieldThresholds
    /// The spool folders and report files read, as given.
    public var sources: [String]

    public init(
        population: FieldPopulation, clockSources: [FieldClockCount], exclusions: [FieldExclusionCount],
        thresholds: FieldThresholds, sources: [String]
    ) {
        self.population = population
        self.start = Self.startText
        self.end = Self.endText
        self.clockSources = clockSources
        self.exclusions = exclusions
        self.unseen = Self.unseenPrograms
        self.thresholds = thresholds
        self.sources = sources
    }

    public static let startText =
        "birth: CLOCK_MONOTONIC read by the launcher just before execve (PREMAIN_T0, exact), else the schedstat estimate (loader start minus the process's run and wait time: a lower bound that misses sleeps)"
    public static let endText =
        "main: la_preinit, after every initializer has run and before main; a mark: premain_mark(NAME) in the program"
    public static let unseenPrograms = [
        "static executables (no dynamic loader, no LD_AUDIT)",
        "setuid and setgid programs (the loader ignores LD_AUDIT)",
        "children started with a cleared environment (env -i), or without LD_AUDIT",
        "images that exec another image or exit before main",
        "launches whose spool folder was missing (nowhere to count the drop)",
    ]

    /// The count of one exclusion; 0 when absent.
    public subscript(_ exclusion: FieldExclusion) -> Int {
        exclusions.first { $0.reason == exclusion.rawValue }?.count ?? 0
    }

    /// The count of launches with one birth clock; 0 when absent.
    public subscript(_ source: FieldClockSource) -> Int {
        clockSources.first { $0.source == source }?.count ?? 0
    }
}

/// Who and when: distinct hosts, users and boots, and the window the spool files were written in.
public struct FieldPopulation: Codable, Equatable, Sendable {
    /// Launch records read (before exclusions).
    public var launches: Int
    public var hosts: Int
    public var users: Int
    public var boots: Int
    /// Records carry CLOCK_MONOTONIC only (docs/field-record.md); the window is the last-write
    /// times of the spool files read (UTC, ISO 8601): the oldest file's and the newest's. `nil`
    /// when only reports were read.
    public var oldestFileWrite: String?
    public var newestFileWrite: String?

    public init(
        launches: Int, hosts: Int, users: Int, boots: Int, oldestFileWrite: String?, newestFileWrite: String?
    ) {
        self.launches = launches
        self.hosts = hosts
        self.users = users
        self.boots = boots
        self.oldestFileWrite = oldestFileWrite
        self.newestFileWrite = newestFileWrite
    }
}

/// Where a launch's birth time came from (`t0src`).
public enum FieldClockSource: String, Codable, Sendable, CaseIterable {
    /// `PREMAIN_T0` from a launcher: exact.
    case env
    /// The schedstat estimate: a lower bound.
    case schedstat
    /// None: time to main unknown, loader start to main only.
    case none

    public var title: String {
        switch self {
        case .env: return "exact (PREMAIN_T0)"
        case .schedstat: return "estimate (schedstat)"
        case .none: return "none"
        }
    }
}

public struct FieldClockCount: Codable, Equatable, Sendable {
    public var source: FieldClockSource
    public var count: Int

    public init(source: FieldClockSource, count: Int) {
        self.source = source
        self.count = count
    }
}

/// Why something read is not in a row's figures.
public enum FieldExclusion: String, Codable, Sendable, CaseIterable {
    /// Lines without a known version word, a required key, or with a malformed number.
    case malformed
    /// Records of a kind this premain does not know.
    case otherKind
    /// Records the recorder could not write (the size of the `.drops` files).
    case dropped
    /// Images that exec'd another image: the last image of the process is the launch.
    case execdAway
    /// Launches over 60 s to main (or loader start to main): a stopped or debugged process.
    case overSixtySeconds
    /// Launches without a birth time: in loader-to-main only, not in time to main.
    case t0Missing
    /// Launches whose main comes before their birth, or whose loader start before birth.
    case clockInconsistent
    /// Marks with no launch of the same boot and pid before them.
    case marksWithoutLaunch

    public var title: String {
        switch self {
        case .malformed: return "malformed lines"
        case .otherKind: return "records of another kind"
        case .dropped: return "dropped by the recorder"
        case .execdAway: return "exec'd another image"
        case .overSixtySeconds: return "over 60 s to main"
        case .t0Missing: return "no birth time (loader to main only)"
        case .clockInconsistent: return "times out of order"
        case .marksWithoutLaunch: return "marks without a launch"
        }
    }
}

/// One exclusion and its count. `reason` is a `FieldExclusion` raw value, or
/// `withoutMark:NAME` for launches (with a birth time) of executables that set mark NAME
/// elsewhere but not in that launch.
public struct FieldExclusionCount: Codable, Equatable, Sendable {
    public var reason: String
    public var title: String
    public var count: Int

    public init(reason: String, title: String, count: Int) {
        self.reason = reason
        self.title = title
        self.count = count
    }

    public init(_ exclusion: FieldExclusion, _ count: Int) {
        self.init(reason: exclusion.rawValue, title: exclusion.title, count: count)
    }

    public static func withoutMark(_ name: String, _ count: Int) -> Self {
        Self(reason: "withoutMark:" + name, title: "launches without mark '\(name)'", count: count)
    }
}
