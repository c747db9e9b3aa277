// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "premain",
    products: [
        .executable(name: "premain", targets: ["premain"]),
    ],
    targets: [
        // System C libraries, from Debian packages.
        .systemLibrary(
            name: "CELF",
            pkgConfig: "libelf",
            providers: [.apt(["libelf-dev"])]
        ),
        .systemLibrary(
            name: "CDemangle",
            providers: [.apt(["libstdc++-12-dev"])]
        ),
        .systemLibrary(
            name: "CDW",
            pkgConfig: "libdw",
            providers: [.apt(["libdw-dev"])]
        ),
        // Tiny C for what Swift cannot call: variadic ptrace, fork + exec with set-up.
        .target(name: "CTrace"),
        // The only importer of CELF: libelf handles become Swift values.
        .target(name: "ELFKit", dependencies: ["CELF"]),
        // The audit, measure, trace, rules, diff and renderers. Never prints.
        .target(name: "PremainCore", dependencies: ["ELFKit", "CDemangle", "CTrace", "CDW"]),
        // The thin command-line tool.
        .executableTarget(name: "premain", dependencies: ["PremainCore"]),
        .testTarget(name: "ELFKitTests", dependencies: ["ELFKit"]),
        .testTarget(name: "PremainCoreTests", dependencies: ["PremainCore", "ELFKit"],
                    exclude: ["Golden"]),  // golden files are read by path (#filePath), not bundled
        .testTarget(name: "PremainCLITests", dependencies: ["PremainCore"]),
    ],
    swiftLanguageModes: [.v6]
)
