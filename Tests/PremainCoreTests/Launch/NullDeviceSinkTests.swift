import Glibc
import PremainModel
import Testing

@testable import PremainLaunch

/// The private null device shared by a launcher's runs: its watch reports the first write of a
/// run only, nothing of it stays on disk, and one launch at a time has it. Needs CAP_MKNOD.
@Suite(.enabled(if: getuid() == 0, "mknod needs root")) struct NullDeviceSinkTests {
    static func readable(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1
    }

    static func write(_ sink: NullDeviceSink) {
        #expect(Glibc.write(sink.device, "x", 1) == 1)
    }

    @Test func theNodeIsGoneFromDiskAndIsANullDevice() throws {
        let sink = try #require(NullDeviceSink.make())
        var status = stat()
        #expect(fstat(sink.device, &status) == 0)
        #expect(status.st_nlink == 0)
        #expect(status.st_rdev == NullDeviceSink.nullDevice)
        // Each launch opens it anew: a flag one target sets stays with its own descriptor.
        let first = sink.openForWriting()
        let second = sink.openForWriting()
        defer {
            close(first)
            close(second)
        }
        #expect(fcntl(first, F_SETFL, O_NONBLOCK) == 0)
        #expect(fcntl(second, F_GETFL) & O_NONBLOCK == 0)
        var reopened = stat()
        #expect(fstat(second, &reopened) == 0 && reopened.st_ino == status.st_ino)
    }

    @Test func writesThroughAReopenedDescriptorAreSeen() throws {
        let sink = try #require(NullDeviceSink.make())
        let fd = sink.openForWriting()
        defer { close(fd) }
        #expect(sink.arm())
        #expect(Glibc.write(fd, "x", 1) == 1)
        #expect(Self.readable(sink.watchFD))
    }

    @Test func onlyAnArmedWatchSeesWrites() throws {
        let sink = try #require(NullDeviceSink.make())
        Self.write(sink)
        #expect(!Self.readable(sink.watchFD), "a new sink is disarmed")
        #expect(sink.arm())
        #expect(!Self.readable(sink.watchFD))
        Self.write(sink)
        #expect(Self.readable(sink.watchFD))
        sink.disarm()
        // The next launch does not see this launch's write.
        #expect(sink.arm())
        #expect(!Self.readable(sink.watchFD))
        sink.disarm()
        Self.write(sink)
        #expect(!Self.readable(sink.watchFD))
    }

    @Test func oneLaunchAtATimeHasIt() throws {
        let sink = try #require(NullDeviceSink.make())
        #expect(sink.claim())
        #expect(!sink.claim())
        sink.release()
        #expect(sink.claim())
    }

    /// The first run writes, the second does not: the second has no first output.
    @Test func aRunDoesNotSeeTheOutputOfTheRunBefore() throws {
        let launcher = ProcessLauncher()
        func run(_ script: String) throws -> LaunchSample {
            try launcher.launch(
                LaunchRequest(
                    executablePath: "/bin/sh", arguments: ["sh", "-c", script],
                    environment: ["PATH=/usr/bin:/bin"], instrumented: false))
        }
        for _ in 0..<2 {
            let writer = try run("echo to-stdout")
            #expect(writer.outcome.kind == .success)
            #expect(writer.outputThroughPipe == false)
            #expect(writer.firstOutputStream == .stdout)
            let quiet = try run("exit 0")
            #expect(quiet.outcome.kind == .success)
            #expect(quiet.firstOutputMs == nil)
        }
    }
}
