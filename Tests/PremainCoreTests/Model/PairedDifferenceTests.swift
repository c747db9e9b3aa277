import Foundation
import PremainModel
import PremainRender
import Testing

/// Issue 25: times and counts share one interval type whose unit names its JSON keys, and the
/// keys are those `TimeDifference` and `CountDifference` always wrote.
struct PairedDifferenceTests {
    static let interval = PairedInterval(estimate: 1.5, low: 0.25, high: 2.75, level: 0.95, count: 24)

    @Test func timeAndCountDifferencesWriteTheirOldKeys() throws {
        #expect(
            try JSONRenderer.render(TimeDifference(Self.interval))
                == "{\n  \"highMs\" : 2.75,\n  \"level\" : 0.95,\n  \"lowMs\" : 0.25,\n  \"medianMs\" : 1.5,\n  \"pairs\" : 24\n}\n"
        )
        #expect(
            try JSONRenderer.render(CountDifference(Self.interval))
                == "{\n  \"high\" : 2.75,\n  \"level\" : 0.95,\n  \"low\" : 0.25,\n  \"median\" : 1.5,\n  \"pairs\" : 24\n}\n"
        )
        let time = TimeDifference(Self.interval)
        #expect(try JSONDecoder().decode(TimeDifference.self, from: JSONEncoder().encode(time)) == time)
        #expect(time.medianMs == time.median && time.lowMs == 0.25 && time.highMs == 2.75)
        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode(
                TimeDifference.self, from: JSONEncoder().encode(CountDifference(Self.interval)))
        }
    }
}
