import PremainRender
import Testing

/// Issue 36, item 12: the progress line says how far a step has got and, once a second has gone
/// by, how long is left at the rate so far.
struct ProgressTextTests {
    @Test func barCountsAndSaysTheTimeLeft() {
        #expect(
            ProgressText.bar("auditing", done: 0, total: 400, elapsedSeconds: 0)
                == "auditing [------------------------------] 0/400")
        // 100 of 400 in 4 s: 12 s left.
        #expect(
            ProgressText.bar("auditing", done: 100, total: 400, elapsedSeconds: 4)
                == "auditing [#######-----------------------] 100/400, about 12 s left")
        // Under a second, or nothing done yet: no guess.
        #expect(ProgressText.secondsLeft(done: 5, total: 10, elapsedSeconds: 0.5) == nil)
        #expect(ProgressText.secondsLeft(done: 0, total: 10, elapsedSeconds: 3) == nil)
        #expect(ProgressText.secondsLeft(done: 10, total: 10, elapsedSeconds: 3) == nil)
        #expect(
            ProgressText.bar("x", done: 10, total: 10, elapsedSeconds: 3) == "x [##############################] 10/10")
    }

    @Test func timeLeftReadsInSecondsMinutesAndHours() {
        #expect(ProgressText.timeLeft(0.2) == "about 1 s left")
        #expect(ProgressText.timeLeft(42.1) == "about 43 s left")
        #expect(ProgressText.timeLeft(185) == "about 3 min left")
        #expect(ProgressText.timeLeft(7500) == "about 2 h 5 min left")
        #expect(
            ProgressText.step("auditing", "walking folders, 12 files found")
                == "auditing: walking folders, 12 files found…")
    }
}
