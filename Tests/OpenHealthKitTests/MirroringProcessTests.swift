import Foundation
import OpenHealthKit
import TestSupport
import Testing

/// The companion in a second process (`MirrorCompanionHelper`) on the same store file: it receives the mirrored
/// session, answers data, pauses the primary, and when it is killed the primary hears the disconnection with an
/// error. Every read from the child waits under the suite's time limit, and a deadline kills a child that hangs.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct MirroringProcessTests {
    static var helper: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("MirrorCompanionHelper")
    }

    @Test func aCompanionInAnotherProcessFollowsAnswersAndIsMissedWhenKilled() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("health.sqlite")
        let process = Process()
        process.standardInput = FileHandle.nullDevice
        process.executableURL = Self.helper
        process.arguments = [path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var child = lines(of: output).makeAsyncIterator()
        let deadline = DispatchWorkItem { kill(process.processIdentifier, SIGKILL) }
        // Just under the suite's one-minute limit: a hung child still ends, and a slow machine (a full parallel run
        // on two loaded cores took 44 s here) is not mistaken for one.
        DispatchQueue.global().asyncAfter(deadline: .now() + 55, execute: deadline)
        defer {
            deadline.cancel()
            // A test that fails early leaves no companion behind (it would hold the test run's output open).
            process.killGroup()
        }
        #expect(await child.next() == "listening")

        let store = try await authorizedStore(client: "watch", databasePath: path)
        let clock = HandClock(t0)
        store.wallClock = { clock.now }
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .cycling
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration)
        let calls = MirrorCallRecorder()
        session.delegate = calls
        var primary = calls.calls.makeAsyncIterator()
        session.startActivity(with: t0)
        #expect(await primary.next() == .state(from: .notStarted, to: .running, date: t0))
        try await session.startMirroringToCompanionDevice()
        // HKWorkoutActivityType.cycling is 13 and HKWorkoutSessionState.running 2 (HealthKit's raw values).
        #expect(await child.next() == "mirrored 13 2")

        try await session.sendToRemoteWorkoutSession(data: Data("hello".utf8))
        #expect(await child.next() == "data hello")
        #expect(await primary.data(count: 1) == [Data("echo:hello".utf8)])

        clock.advance(by: 30)
        try await session.sendToRemoteWorkoutSession(data: Data("pause".utf8))
        #expect(await child.next() == "data pause")
        // The pause the companion asked for happens on the primary, at the primary's time: t0 + 30 s = 800 000 030.
        #expect(await primary.next() == .state(from: .running, to: .paused, date: t0 + 30))
        #expect(await primary.next() == .event(.pause, t0 + 30))
        #expect(await child.next() == "state 2 4 800000030.0")
        #expect(await child.next() == "event 1 800000030.0")
        #expect(session.state == .paused)

        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit(within: 10)
        #expect(await primary.next() == .disconnected(withError: true))
        let error = try #require(calls.disconnectionError as? HKError)
        #expect(error.message == "The other side of the mirrored workout went away without stopping mirroring.")
        await expectHKError(.errorNoData) { try await session.sendToRemoteWorkoutSession(data: Data("late".utf8)) }
    }
}
