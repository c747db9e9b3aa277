// swift-tools-version:6.0
import Foundation
import PackageDescription

let package = Package(
    name: "premain",
    products: [
        .executable(name: "premain", targets: ["premain"]),
        // The field recorder (docs/recorder.md), an rtld-audit library loaded with LD_AUDIT; it
        // lands beside the premain binary as libpremain-record.so.
        .library(name: "premain-record", type: .dynamic, targets: ["PremainRecord"]),
    ],
    targets: [
        // System C libraries, from Debian packages.
        .systemLibrary(
            name: "CELF",
            pkgConfig: "libelf",
            providers: [.apt(["libelf-dev", "zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CDemangle",
            providers: [.apt(["libstdc++-12-dev"])]
        ),
        // Headers only: libdw and libsqlite3 are not linked but loaded on first use
        // (CLazyLibraries), so that a start that needs neither does not map or bind them.
        .systemLibrary(
            name: "CDW",
            providers: [.apt(["libdw-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Tiny C: libdw's and SQLite's functions as forwarders to the library, dlopen'ed on first use.
        .target(name: "CLazyLibraries"),
        // Tiny C for what Swift cannot call: variadic ptrace, fork + exec with set-up.
        .target(name: "CTrace"),
        // The commit premain was built from, for --version (buildCommit() below).
        .target(
            name: "CBuildInfo", exclude: ["COMMIT"],
            cSettings: [.define("PREMAIN_COMMIT", to: "\"\(buildCommit())\"")]),
        // Tiny C for a signal handler: a SIGBUS in a file mapping becomes a page of zeros.
        .target(name: "CMapGuard"),
        // The field recorder, without libc (a libc-linked auditor makes ld.so load a second libc
        // into the audit namespace): raw system calls, nothing to link, no DT_NEEDED at all.
        // Its public header is premain_mark(), the header-only mark API.
        .target(
            name: "PremainRecord",
            exclude: ["Link"],
            cSettings: [
                .unsafeFlags([
                    "-Os", "-ffreestanding", "-fno-stack-protector", "-fvisibility=hidden", "-fno-builtin",
                ])
            ],
            linkerSettings: [
                // swiftc links the product: no Swift start-up files (-nostartfiles), no libc or crt
                // files (-nostdlib), no rpath to the toolchain, and its -lswiftCore resolved by the
                // empty linker script in Link/linux (the resource folder named here).
                .unsafeFlags([
                    "-nostartfiles", "-no-toolchain-stdlib-rpath", "-resource-dir",
                    Context.packageDirectory + "/Sources/PremainRecord/Link", "-Xclang-linker", "-nostdlib",
                    "-Xlinker", "-z", "-Xlinker", "defs",
                    // No RELRO: the recorder imports nothing, so it has no GOT to protect, and
                    // ld.so maps it without the RELRO page's mprotect and the gap before it: about
                    // 5 us per launch (scripts/bench-recorder, docs/performance.md).
                    "-Xlinker", "-z", "-Xlinker", "norelro",
                ])
            ]),
        // Bytes that need not be UTF-8 (file names, DT_NEEDED names, argv) kept losslessly in a String.
        .target(name: "LosslessText"),
        // The ELF values both ELFKit and the model name (class, byte order, object kind, relocation
        // format, initializer source and resolution, why a file could not be opened): declared once.
        .target(name: "ELFValues"),
        // The only importer of CELF: libelf handles become Swift values.
        .target(name: "ELFKit", dependencies: ["CELF", "CLazyLibraries", "CMapGuard", "ELFValues", "LosslessText"]),
        // The pipeline, one target per stage: a target may import only those above it, so an
        // import that points backwards does not compile. Nothing below the CLI prints.
        // The report contract: Codable values of every command, one TimeSummary, statistics.
        .target(name: "PremainModel", dependencies: ["ELFValues"]),
        // The few POSIX file-system calls premain makes: path names, listings, whole-file reads.
        .target(name: "PremainSystem", dependencies: ["LosslessText"]),
        // Static analysis: inventory, load closure, batch audit, DWARF source lines (libdw).
        .target(
            name: "PremainAudit",
            dependencies: [
                "PremainModel", "PremainSystem", "LosslessText", "ELFKit", "ELFValues", "CDemangle", "CDW",
                "CLazyLibraries",
            ]),
        // Real launches: measure and trace (ptrace, x86-64 only behind #if arch).
        .target(
            name: "PremainLaunch",
            dependencies: ["PremainModel", "PremainSystem", "LosslessText", "PremainAudit", "ELFKit", "CTrace"]),
        // Judging: rules, budgets, premain.json, diff; reads reports as model values.
        .target(name: "PremainJudge", dependencies: ["PremainModel", "PremainSystem", "PremainAudit", "LosslessText"]),
        // premain pr's pipeline as a session: commits built in worktrees, both folders read and
        // diffed, one program compared, one report.
        .target(
            name: "PremainPullRequest",
            dependencies: [
                "LosslessText", "PremainModel", "PremainSystem", "PremainAudit", "PremainLaunch", "PremainJudge",
            ]),
        // History across commits: any report's metrics in a SQLite database (the only importer of CSQLite).
        .target(name: "PremainHistory", dependencies: ["PremainModel", "PremainSystem", "CSQLite", "CLazyLibraries"]),
        // Field data: the rtld-audit recorder's spool files read, joined and summarised
        // (docs/field-record.md); field reports compared.
        .target(name: "PremainField", dependencies: ["PremainModel", "PremainSystem", "LosslessText"]),
        // Renderers: text, Markdown, SARIF, JSON; pure functions of model values.
        .target(name: "PremainRender", dependencies: ["PremainModel", "ELFValues", "LosslessText"]),
        // The thin command-line tool.
        .executableTarget(
            name: "premain",
            dependencies: [
                "CBuildInfo", "LosslessText", "PremainModel", "PremainSystem", "PremainAudit", "PremainLaunch",
                "PremainJudge", "PremainHistory", "PremainField",
                "PremainPullRequest", "PremainRender",
            ],
            exclude: ["Link"],
            linkerSettings: [
                // premain's own start (release builds): libstdc++ linked in statically, so the
                // loader neither maps libstdc++.so nor binds its ~1,700 symbol references at every
                // start (Link/libstdc++.so is a linker script naming the archive, which the
                // libstdc++ development package installs beside the shared library). No
                // `-export-dynamic` (which the static Swift runtime's arguments ask for): a
                // 10,000-symbol dynamic table made the runtime's `dladdr` at start scan it all.
                // -z now, -z relro: bound at start and read-only after relocation (Debian's hardening,
                // lintian's hardening-no-bindnow).
                // -no-pie: a position-dependent executable, so the loader applies none of the
                // 46,706 RELATIVE relocations of the PIE and writes (copies) none of the pages they
                // sit in. Measured with premain itself (issue 37, docs/performance.md): exit of
                // `premain --version` 1.685 → 1.110 ms (median of 101), 1.32 M → 0.71 M
                // instructions; a PIE with packed relative relocations (ld.bfd -z
                // pack-relative-relocs, DT_RELR) reached 1.571 ms and 1.14 M, as it still writes
                // every relocated page. The price is a fixed address for premain's own image
                // (its libraries, heap and stack stay randomised); the package's lintian override
                // says so. -static-libgcc: libgcc's unwinder linked in, so libgcc_s.so.1 is not
                // loaded and its constructor (__cpu_indicator_init: cpuid, which traps in a VM, 50 us
                // traced) does not run: time to main of --version 1.250 -> 1.084 ms, paired (compare,
                // 16 runs per side, docs/performance.md).
                .unsafeFlags(
                    [
                        "-L", Context.packageDirectory + "/Sources/premain/Link", "-Xlinker", "--no-export-dynamic",
                        "-Xlinker", "-z", "-Xlinker", "now", "-Xlinker", "-z", "-Xlinker", "relro",
                        "-Xclang-linker", "-no-pie", "-Xclang-linker", "-static-libgcc",
                    ],
                    .when(platforms: [.linux], configuration: .release))
            ]),
        // Helpers both test targets use: the samples built once per test run, running programs
        // and the built premain, /proc scans, self-timing logs, recorded reports
        // (swift-argument-parser's ArgumentParserTestHelpers is the model).
        .target(
            name: "PremainTestSupport", dependencies: ["CSQLite", "CLazyLibraries"], path: "Tests/PremainTestSupport"),
        .testTarget(name: "ELFKitTests", dependencies: ["ELFKit", "ELFValues", "PremainTestSupport"]),
        .testTarget(
            name: "PremainCoreTests",
            dependencies: [
                "LosslessText", "PremainModel", "PremainSystem", "PremainAudit", "PremainLaunch", "PremainJudge",
                "PremainHistory", "PremainField",
                "PremainPullRequest", "PremainRender", "ELFKit", "PremainTestSupport",
            ]),
        .testTarget(
            name: "PremainCLITests",
            dependencies: [
                "PremainModel", "PremainSystem", "PremainAudit", "PremainLaunch", "PremainJudge", "PremainRender",
                "PremainTestSupport",
            ]),
    ],
    swiftLanguageModes: [.v6]
)

/// The commit being built, for `premain --version`, read without running git (a tarball has
/// none): `PREMAIN_COMMIT` from the environment (scripts/release sets it), else
// Release builds of premain's Swift code (what scripts/build-premain, scripts/release and the
// GitHub Action build): no run-time exclusivity checks (debug builds and the tests keep them),
// and type metadata reached through accessor calls rather than mangled names, which made the
// runtime demangle the name and scan every protocol conformance record of the static runtime
// (about 300 K instructions per generic type, 6 M per folder audit). docs/performance.md has
// the figures.
for target in package.targets where target.type != .system && !target.name.hasPrefix("C") {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .unsafeFlags(
                [
                    "-enforce-exclusivity=unchecked", "-Xfrontend",
                    "-disable-concrete-type-metadata-mangled-name-accessors",
                ], .when(configuration: .release))
        ]
}

/// Sources/CBuildInfo/COMMIT when `git archive` filled it in (export-subst), else the checkout's
/// HEAD read from .git (a worktree's `.git` file, loose and packed refs). "" when none says.
func buildCommit() -> String {
    func isCommit(_ text: String) -> Bool { text.count == 40 && text.allSatisfy(\.isHexDigit) }
    func read(_ path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    if let given = ProcessInfo.processInfo.environment["PREMAIN_COMMIT"], isCommit(given) { return given }
    let root = Context.packageDirectory
    if let archived = read(root + "/Sources/CBuildInfo/COMMIT"), isCommit(archived) { return archived }
    var gitDirectory = root + "/.git"
    if let link = read(gitDirectory), link.hasPrefix("gitdir: ") {  // a worktree or submodule
        let target = String(link.dropFirst("gitdir: ".count))
        gitDirectory = target.hasPrefix("/") ? target : root + "/" + target
    }
    guard let head = read(gitDirectory + "/HEAD") else { return "" }
    if isCommit(head) { return head }
    guard head.hasPrefix("ref: ") else { return "" }
    let ref = String(head.dropFirst("ref: ".count))
    let common =
        read(gitDirectory + "/commondir").map { $0.hasPrefix("/") ? $0 : gitDirectory + "/" + $0 } ?? gitDirectory
    for folder in [gitDirectory, common] {
        if let loose = read(folder + "/" + ref), isCommit(loose) { return loose }
    }
    for line in (read(common + "/packed-refs") ?? "").split(separator: "\n") where line.hasSuffix(" " + ref) {
        let commit = String(line.prefix(40))
        if isCommit(commit) { return commit }
    }
    return ""
}
