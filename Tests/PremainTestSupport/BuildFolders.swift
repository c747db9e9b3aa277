import Foundation

/// Build folders shaped like SwiftPM's, made from a built pair side (`pairs/base`,
/// `pairs/head`): the programs among the intermediate files a real build leaves, under a
/// symlinked `release` folder.
public enum BuildFolders {
    /// What `swiftPMLike` put beside the programs, for assertions.
    public static let objectFiles = ["app.build/app.c.o", "app.build/core.c.o", "ModuleCache/Core-1ABC.pcm"]
    public static let otherFiles = [
        "libCore.a", "Modules/Core.swiftmodule", "Modules/Core.swiftdoc", "app.build/app.d",
    ]
    public static let swiftPMJSONFiles = ["app.build/output-file-map.json", "description.json"]

    /// `<root>/.build/x86_64-unknown-linux-gnu/release/` holding the pair side's `app` and
    /// `lib/libcore.so` (and `lib/libextra.so` in head) beside relocatable objects (`.o`, a
    /// `.pcm` that is a copy of one, as Clang writes them on Linux), an archive, module files and
    /// SwiftPM's `output-file-map.json` and `description.json`; `<root>/.build/release` is a
    /// symlink to it, as SwiftPM makes it. Returns `<root>/.build/release` (without a slash).
    public static func swiftPMLike(pairSide side: String, in root: String) throws -> String {
        let manager = FileManager.default
        let real = root + "/.build/x86_64-unknown-linux-gnu/release"
        for folder in ["lib", "app.build", "ModuleCache", "Modules"] {
            try manager.createDirectory(atPath: real + "/" + folder, withIntermediateDirectories: true)
        }
        let pair = try Samples.path("pairs/" + side)
        try Shell.copyExecutable(pair + "/app", to: real + "/app")
        for library in try manager.contentsOfDirectory(atPath: pair + "/lib") {
            try manager.copyItem(atPath: pair + "/lib/" + library, toPath: real + "/lib/" + library)
        }
        let sources = Repository.root + "/samples"
        for (source, object) in [("pairs/app.c", "app.build/app.c.o"), ("pairs/core.c", "app.build/core.c.o")] {
            let result = try Shell.run([
                "gcc", "-c", "-O1", "-I", sources + "/common", "-I", sources + "/pairs",
                sources + "/" + source, "-o", real + "/" + object,
            ])
            guard result.status == 0 else { throw SampleBuildError(message: "gcc -c \(source): \(result.stderr)") }
        }
        try manager.copyItem(atPath: real + "/app.build/core.c.o", toPath: real + "/ModuleCache/Core-1ABC.pcm")
        let archive = try Shell.run(["ar", "rcs", real + "/libCore.a", real + "/app.build/core.c.o"])
        guard archive.status == 0 else { throw SampleBuildError(message: "ar: \(archive.stderr)") }
        try "swiftmodule bytes".write(toFile: real + "/Modules/Core.swiftmodule", atomically: true, encoding: .utf8)
        try "swiftdoc".write(toFile: real + "/Modules/Core.swiftdoc", atomically: true, encoding: .utf8)
        try "app.c.o: app.c\n".write(toFile: real + "/app.build/app.d", atomically: true, encoding: .utf8)
        try
            #"{"": {"swift-dependencies": "/x/master.swiftdeps"}, "/x/app.swift": {"object": "/x/app.build/app.swift.o"}}"#
            .write(toFile: real + "/app.build/output-file-map.json", atomically: true, encoding: .utf8)
        try #"{"builtTestProducts": [], "copyCommands": {}, "swiftCommands": {}}"#
            .write(toFile: real + "/description.json", atomically: true, encoding: .utf8)
        try manager.createSymbolicLink(
            atPath: root + "/.build/release", withDestinationPath: "x86_64-unknown-linux-gnu/release")
        return root + "/.build/release"
    }

    /// A fresh temporary folder for one test (see `TemporaryFolders`); remove it with
    /// `FileManager.removeItem`.
    public static func temporaryRoot(_ name: String) throws -> String {
        try TemporaryFolders.make(name)
    }
}
