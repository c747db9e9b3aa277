import ELFKit
import PremainAudit
import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem
import Testing

/// Dynamic string tokens, and the closure text rendered from a hand-built closure.
@Suite struct ClosureRenderingTests {
    @Test func tokensExpandLikeGlibc() {
        let expand = { (text: String) in
            DynamicStringTokens.expand(text, origin: "/opt/app/bin", lib: "lib/x86_64-linux-gnu", platform: "x86_64")
        }
        #expect(expand("$ORIGIN/../lib") == "/opt/app/bin/../lib")
        #expect(expand("${ORIGIN}/lib") == "/opt/app/bin/lib")
        #expect(expand("/usr/$LIB/x") == "/usr/lib/x86_64-linux-gnu/x")
        #expect(expand("/p/${PLATFORM}") == "/p/x86_64")
        #expect(expand("$ORIGINAL/x") == "$ORIGINAL/x")  // not a token: a word character follows
        #expect(expand("$UNKNOWN/lib") == "$UNKNOWN/lib")
        #expect(expand("${ORIGIN") == "${ORIGIN")
        #expect(expand("plain/path") == "plain/path")
        #expect(expand("$") == "$")
        #expect(DynamicStringTokens.expand("$ORIGIN/x", origin: nil, lib: "lib", platform: "p") == nil)
    }

    static func object(
        _ name: String, _ path: String, via: FoundVia, depth: Int, neededBy: String,
        system: Bool = false, relocations: Int = 0
    ) -> ClosureObject {
        var census = RelocationCensus()
        census.add(.relative, relocations)
        let cost = ObjectCost(relocations: census, initializers: 1, exported: 10, lookups: 0, bindNow: false)
        return ClosureObject(
            path: path, realPath: path, soname: name, requestedName: name, foundVia: via,
            searchDirectory: nil, depth: depth, neededBy: neededBy, needed: [], system: system,
            cost: cost)
    }

    static func binary() throws -> BinaryInventory {
        var inventory = try InventoryBuilder.audit(path: "/bin/true")
        inventory.path = "/app/bin/app"
        let objects = [
            object(
                "libcore.so", "/app/lib/libcore.so", via: .runpath, depth: 1, neededBy: "/app/bin/app", relocations: 300
            ),
            object(
                "libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6", via: .ldSoCache, depth: 1, neededBy: "/app/bin/app",
                system: true, relocations: 600),
            object(
                "libleaf.so", "/app/lib/libleaf.so", via: .rpath, depth: 2, neededBy: "/app/lib/libcore.so",
                relocations: 100),
            object(
                "ld-linux-x86-64.so.2", "/lib64/ld-linux-x86-64.so.2", via: .interpreter, depth: 1,
                neededBy: "/app/bin/app", system: true),
        ]
        let missing = MissingLibrary(
            name: "libgone.so", neededBy: "/app/lib/libcore.so",
            searched: ["/app/lib", "/etc/ld.so.cache", "/lib/x86_64-linux-gnu"], wrongClass: [])
        var program = RelocationCensus()
        program.add(.symbolic, 10)
        let programCost = ObjectCost(relocations: program, initializers: 2, exported: 0, lookups: 10, bindNow: true)
        var closure = DependencyClosure(objects: objects, missing: [missing])
        closure.program = programCost
        closure.totals = ClosureTotals(program: programCost, objects: objects)
        closure.unusedNeeded = ["libextra.so"]
        inventory.closure = closure
        inventory.unusedNeeded = ["libextra.so"]
        return inventory
    }

    @Test func treeFoldsSystemLibrariesAndHonoursDepth() throws {
        let text = ClosureTextRenderer.render(try Self.binary())
        #expect(
            text.contains(
                """
                  /app/bin/app
                  ├── libcore.so [runpath] /app/lib/libcore.so
                  │   ├── libleaf.so [rpath] /app/lib/libleaf.so
                  │   └── libgone.so not found
                  └── ld-linux-x86-64.so.2 [interpreter] /lib64/ld-linux-x86-64.so.2
                  1 system libraries folded (--all shows them): libc.so.6
                """))
        #expect(text.contains("Load closure (4 objects, 1 missing)"))
        #expect(text.contains("searched: /app/lib, /etc/ld.so.cache, /lib/x86_64-linux-gnu"))
        #expect(text.contains("Unused direct dependencies"))
        #expect(text.contains("  libextra.so\n"))
        // program 10 + 300 + 600 + 100 relocations.
        #expect(text.contains("relocations            10     1010"))
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 100 })

        let all = ClosureTextRenderer.render(try Self.binary(), options: .init(depth: 1, all: true))
        #expect(all.contains("├── libc.so.6 [ld.so.conf] /lib/x86_64-linux-gnu/libc.so.6"))
        #expect(!all.contains("libleaf.so [rpath]"))
        #expect(all.contains("│   └── …"))
        #expect(!all.contains("folded"))
    }

    @Test func totalsAddTheProgramAndEveryObject() throws {
        let closure = try #require(try Self.binary().closure)
        let totals = try #require(closure.totals)
        #expect(totals.objects == 4)
        #expect(totals.relocations.total == 1010)
        #expect(totals.relocations.relative == 1000)
        #expect(totals.initializers == 2 + 4)
        #expect(totals.exported == 40)
        #expect(totals.lookups == 10)
    }
}
