import ELFKit
import Foundation
import PremainLaunch
import PremainModel
import PremainTestSupport
import Synchronization
import Testing

/// The per-machine cost model on made-up measurements with known costs, and `--verify`'s copies
/// on a real sample with a scripted launcher (no wall time asserted).
struct LoaderCostModelTests {
    static func measurement(
        _ objects: [(relative: Int, symbolic: Int, mapped: Bool)], nsObject: Double = 50_000,
        nsRelative: Double = 20, nsSymbol: Double = 150
    ) -> LaunchMeasurement {
        let measured = objects.enumerated().map { index, object -> ObjectMeasurement in
            let ms =
                ((object.mapped ? nsObject : 0) + Double(object.relative) * nsRelative
                    + Double(object.symbolic) * nsSymbol) / 1e6
            var result = ObjectMeasurement(
                path: "/lib/lib\(index).so", role: object.mapped ? .library : .executable,
                mapping: object.mapped ? TimeSummary(samplesMs: [ms / 2]) : nil,
                relocation: TimeSummary(samplesMs: [object.mapped ? ms / 2 : ms]))
            result.facts = ObjectStaticFacts(
                relative: object.relative, symbolic: object.symbolic, plt: 7, other: 0,
                importedSymbols: 0, bindNow: false, fileSize: 0)
            return result
        }
        return LaunchMeasurement(
            command: ["/app"], runs: 1, warmup: 0, cold: false, conditions: MeasureRendererTests.conditions,
            status: .ok, failures: [], outcomes: [], milestones: Milestones(), objects: measured, warnings: [])
    }

    static let programs: [LaunchMeasurement] = (0..<4).map { seed in
        measurement([
            (100 * (seed + 1), 10, false), (5000, 300 * (seed + 1), true), (800, 40, true), (20_000 + seed, 1000, true),
        ])
    }

    @Test func fitRecoversKnownCosts() throws {
        let model = try #require(LoaderCostModel.fit(Self.programs))
        #expect(abs(model.nsPerObject - 50_000) < 1)
        #expect(abs(model.nsPerRelativeRelocation - 20) < 0.01)
        #expect(abs(model.nsPerSymbolRelocation - 150) < 0.01)
        #expect(model.objects == 16 && model.programs == 4)
        #expect((model.heldOutMedianErrorPercent ?? 100) < 0.01)
        // Lazily bound PLT slots are not start-up work: plt (7) counts only when bound now.
        #expect(
            LoaderCostModel.Input(
                mapped: true,
                facts: ObjectStaticFacts(
                    relative: 1, symbolic: 2, plt: 7, other: 1, importedSymbols: 0, bindNow: true, fileSize: 0)
            ).symbolic == 10)
    }

    @Test func aCoefficientIsNeverNegative() throws {
        // Time falls as relocations grow: the fit holds that coefficient at 0 instead.
        let odd = [
            Self.measurement([(0, 0, true)], nsObject: 100_000, nsRelative: 0),
            Self.measurement([(10_000, 0, true)], nsObject: 50_000, nsRelative: 0),
            Self.measurement([(20_000, 0, true)], nsObject: 10_000, nsRelative: 0),
        ]
        let model = try #require(LoaderCostModel.fit(odd))
        #expect(model.nsPerRelativeRelocation == 0)
        #expect(model.nsPerObject > 0)
        #expect(LoaderCostModel.fit([Self.measurement([(1, 1, true)])]) == nil)
    }

    @Test func theModelRoundTripsAsJSON() throws {
        let model = try #require(LoaderCostModel.fit(Self.programs))
        let decoded = try JSONDecoder().decode(LoaderCostModel.self, from: JSONEncoder().encode(model))
        #expect(decoded == model)
        #expect(decoded.kind.value == .loaderCostModel)
        #expect(
            String(decoding: try JSONEncoder().encode(model), as: UTF8.self).contains(#""kind":"loader-cost-model""#))
    }

    /// Answers base launches (the copy that keeps the library) 0.3 ms later than head ones, and
    /// checks what each copy needs.
    final class Needed: Sendable {
        let bySide = Mutex<[String: [String]]>([:])
    }

    static func copyChecking(_ needed: Needed) -> ScriptedLauncher {
        ScriptedLauncher(answering: { request in
            let isBase = request.executablePath.contains("/base/")
            if let file = try? ELFFile(path: request.executablePath) {
                needed.bySide.withLock { $0[isBase ? "base" : "head"] = file.neededLibraries }
            }
            return CompareTests.launch(mainMs: isBase ? 5.3 : 5.0, cpuMs: 4)
        })
    }

    @Test func verifyComparesAnUnchangedCopyWithOneWithoutTheLibrary() throws {
        let program = try Samples.path("closure/unused/unused-deps")
        let recorded = Needed()
        let launcher = Self.copyChecking(recorded)
        var options = SavingVerifier.defaultOptions
        options.warmup = 0
        options.settings.maxSeconds = 1000
        options.settings.minRuns = 4
        options.settings.maxRuns = 8
        let verifier = SavingVerifier(launcher: launcher, options: options, temporaryRoot: NSTemporaryDirectory())
        let result = verifier.verify(
            program: program, removing: ["libunused.so"], arguments: [], environment: [],
            estimateMs: 0.2)
        #expect(result.error == nil)
        let needed = recorded.bySide.withLock { $0 }
        #expect(needed["base"]?.contains("libunused.so") == true)
        #expect(needed["head"]?.contains("libunused.so") == false)
        #expect(needed["head"]?.count == (needed["base"]?.count ?? 0) - 1)
        #expect(abs((result.savingMs ?? 0) - 0.3) < 1e-6)
        #expect(result.quantity == .milestone(.main))
        #expect(result.sentence.hasPrefix("verified on a copy (removed DT_NEEDED libunused.so): saves 0.30 ms at main"))
    }

    @Test func aMissingPatchelfIsOneLine() throws {
        let program = try Samples.path("closure/unused/unused-deps")
        var verifier = SavingVerifier(launcher: Self.copyChecking(Needed()), temporaryRoot: NSTemporaryDirectory())
        verifier.patchelf = "/nonexistent/patchelf"
        let result = verifier.verify(
            program: program, removing: ["libunused.so"], arguments: [], environment: [], estimateMs: nil)
        #expect(result.error == "cannot run /nonexistent/patchelf: install it (Debian: apt-get install patchelf)")
    }
}
