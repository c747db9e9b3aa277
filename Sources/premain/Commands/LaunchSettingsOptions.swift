/// How the launches of `measure`, `compare` (and `pr`) and `trace` run: one declaration each,
/// so the three commands take the same names, ranges and defaults. `trace` takes the ones that
/// apply to a traced run (`all` less pinning and scheduling: it pins with `--cpu` and has no
/// measuring thread).
enum LaunchSettingsOptions {
    static let warmup = Option<Int>(
        "--warmup", short: "-w", value: "n", help: "Uncounted runs first; each build's when comparing", default: 1,
        in: 0...10_000)
    static let timeout = Option<Double?>(
        "--timeout", short: "-t", value: "seconds", help: "Kill a run that takes longer", in: 0.001...86_400,
        defaultText: "no limit")
    static let noPin = Option.flag("--no-pin", help: "Do not pin premain and the targets to different CPUs")
    static let noRealtime = Option.flag("--no-realtime", help: "Do not raise premain's measuring thread to SCHED_FIFO")
    static let allowIdle = Option.flag(
        "--allow-idle",
        help:
            "Do not hold /dev/cpu_dma_latency at 0 (idle CPUs may halt, and a stamp or a stop may then wait for a wake-up)"
    )
    /// `measure` and `trace`: the launched program reads premain's stdin.
    static let inheritStdin = Option.flag(
        "--inherit-stdin", help: "Give the target premain's stdin instead of /dev/null")

    /// The group as `measure` and `compare` embed it.
    static let all: [any DeclaredOption] = [warmup, timeout, noPin, noRealtime, allowIdle]
    /// The group as `trace` embeds it.
    static let traced: [any DeclaredOption] = [warmup, timeout, allowIdle]
}
