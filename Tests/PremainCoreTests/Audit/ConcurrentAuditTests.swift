import Dispatch
import Foundation
import PremainModel
import PremainTestSupport
import Synchronization
import Testing

@testable import PremainAudit

/// One file audited with a spare core: its closure is walked there, and its Swift census is
/// counted by whichever core comes to it first. Whoever counts it, the report is the one a
/// single core writes.
@Suite struct ConcurrentAuditTests {
    @Test func oneFileOnTwoCoresEqualsOneCore() throws {
        let files = [
            try Samples.path("swift-startup/swift-startup"), try Samples.path("cxx-static-init/cxx-static-init"),
            "/opt/swift/usr/lib/swift/linux/libswiftCore.so",
        ]
        for file in files where FileManager.default.fileExists(atPath: file) {
            let alone = BatchAudit(workers: 1).run([file])
            try #require(alone.binaries.count == 1, "\(file)")
            // The race for the Swift census goes either way from run to run.
            for _ in 0..<4 {
                let shared = BatchAudit(workers: 2).run([file])
                #expect(shared.binaries == alone.binaries, "\(file)")
            }
        }
    }

    /// Two threads race for the task: exactly one does it, and the other gets its value.
    @Test func claimableTaskIsDoneOnceAndItsValueReachesTheOtherThread() {
        for round in 0..<200 {
            let task = ClaimableTask<Int?>()
            let wins = Atomic<Int>(0)
            let results = Mutex<[Int?]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                let value: Int?
                if task.claim() {
                    wins.wrappingAdd(1, ordering: .relaxed)
                    value = round % 3 == 0 ? nil : round
                    task.finish(value)
                } else {
                    value = task.wait()
                }
                results.withLock { $0.append(value) }
            }
            #expect(wins.load(ordering: .relaxed) == 1)
            let expected: Int? = round % 3 == 0 ? nil : round
            #expect(results.withLock { $0 } == [expected, expected])
        }
    }
}
