import BlueZTransport
import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import OpenHealthKit

/// Mirroring between two store objects on one temporary store file, in this process: the companion sets
/// `workoutSessionMirroringStartHandler`, the primary calls `startMirroringToCompanionDevice()`; they talk over the
/// Unix socket beside the file. Dates come from a hand-moved wall clock, so each expected date is the clock's value.
@Suite(.timeLimit(.minutes(1))) struct MirroringTests {
    struct Pair: ~Copyable {
        let directory: TemporaryDirectory
        let primary: HKHealthStore
        let companion: HKHealthStore
        let clock: HandClock
        let sessions: AsyncStream<HKWorkoutSession>
    }

    /// Two stores on one file; the companion hands each mirrored session to `sessions`, with `recorder` as its delegate.
    static func pair(recorder: MirrorCallRecorder) async throws -> Pair {
        let directory = try TemporaryDirectory()
        let path = directory.file("health.sqlite")
        let primary = try await authorizedStore(client: "watch", databasePath: path)
        let companion = try HKHealthStore(databasePath: path, clientIdentifier: "phone")
        let clock = HandClock(t0)
        primary.wallClock = { clock.now }
        let (sessions, received) = AsyncStream.makeStream(of: HKWorkoutSession.self)
        companion.workoutSessionMirroringStartHandler = { session in
            session.delegate = recorder
            received.yield(session)
        }
        #expect(companion.workoutSessionMirroringError == nil)
        return Pair(directory: directory, primary: primary, companion: companion, clock: clock, sessions: sessions)
    }

    static func cycling() -> HKWorkoutConfiguration {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .cycling
        configuration.locationType = .indoor
        return configuration
    }

    @Test func withoutACompanionStartingFailsWithOneSentence() async throws {
        let directory = try TemporaryDirectory()
        let store = try await authorizedStore(databasePath: directory.file("health.sqlite"))
        let session = try HKWorkoutSession(healthStore: store, configuration: Self.cycling())
        let error = await expectHKError(.errorNoData) { try await session.startMirroringToCompanionDevice() }
        #expect(error?.message.contains("No companion is listening") == true)
        let memoryStore = try await authorizedStore()
        let inMemory = try HKWorkoutSession(healthStore: memoryStore, configuration: Self.cycling())
        await expectHKError(.errorNoData) { try await inMemory.startMirroringToCompanionDevice() }
        memoryStore.workoutSessionMirroringStartHandler = { _ in }
        #expect(
            memoryStore.workoutSessionMirroringError?.message
                == "A store in memory receives no mirrored workouts: mirroring needs a store file.")
        await expectHKError(.errorNoData) { try await session.sendToRemoteWorkoutSession(data: Data([1])) }
    }

    /// The whole conversation: the mirrored session arrives with the primary's configuration and state, follows its
    /// pause (state and event, with the primary's dates), resumes the primary from the companion, carries data both
    /// ways in order, ends the primary from the companion, and both sides hear a clean disconnection.
    @Test func theMirroredSessionFollowsAndDrivesThePrimary() async throws {
        let companionCalls = MirrorCallRecorder()
        let pair = try await Self.pair(recorder: companionCalls)
        let primaryCalls = MirrorCallRecorder()
        let session = try HKWorkoutSession(healthStore: pair.primary, configuration: Self.cycling())
        session.delegate = primaryCalls
        session.startActivity(with: t0)
        try await session.startMirroringToCompanionDevice()
        var sessions = pair.sessions.makeAsyncIterator()
        let mirrored = try #require(await sessions.next())
        #expect(mirrored.type == .mirrored)
        #expect(session.type == .primary)
        #expect(mirrored.workoutConfiguration.activityType == .cycling)
        #expect(mirrored.workoutConfiguration.locationType == .indoor)
        #expect(mirrored.state == .running)
        #expect(mirrored.startDate == t0)

        var companion = companionCalls.calls.makeAsyncIterator()
        var primary = primaryCalls.calls.makeAsyncIterator()
        #expect(await primary.next() == .state(from: .notStarted, to: .running, date: t0))

        pair.clock.advance(by: 60.5)
        session.pause()
        #expect(await companion.next() == .state(from: .running, to: .paused, date: t0 + 60.5))
        #expect(await companion.next() == .event(.pause, t0 + 60.5))

        pair.clock.advance(by: 10)
        mirrored.resume()  // acts on the primary, dated by the primary's clock
        #expect(await primary.next() == .state(from: .running, to: .paused, date: t0 + 60.5))
        #expect(await primary.next() == .event(.pause, t0 + 60.5))
        #expect(await primary.next() == .state(from: .paused, to: .running, date: t0 + 70.5))
        #expect(await primary.next() == .event(.resume, t0 + 70.5))
        #expect(await companion.next() == .state(from: .paused, to: .running, date: t0 + 70.5))
        #expect(await companion.next() == .event(.resume, t0 + 70.5))
        #expect(mirrored.state == .running)

        let toCompanion = (0 ..< 20).map { Data("primary \($0)".utf8) }
        for data in toCompanion { try await session.sendToRemoteWorkoutSession(data: data) }
        #expect(await companion.data(count: 20) == toCompanion)
        let toPrimary = (0 ..< 20).map { Data("companion \($0)".utf8) }
        for data in toPrimary { try await mirrored.sendToRemoteWorkoutSession(data: data) }
        #expect(await primary.data(count: 20) == toPrimary)

        pair.clock.advance(by: 5)
        mirrored.end()
        #expect(await primary.next() == .state(from: .running, to: .ended, date: t0 + 75.5))
        #expect(await primary.next() == .disconnected(withError: false))
        #expect(await companion.next() == .state(from: .running, to: .ended, date: t0 + 75.5))
        #expect(await companion.next() == .disconnected(withError: false))
        #expect(session.state == .ended)
        #expect(mirrored.state == .ended)
        await expectHKError(.errorNoData) { try await mirrored.sendToRemoteWorkoutSession(data: Data([1])) }
    }

    @Test func stoppingMirroringDisconnectsBothSidesCleanly() async throws {
        let companionCalls = MirrorCallRecorder()
        let pair = try await Self.pair(recorder: companionCalls)
        let primaryCalls = MirrorCallRecorder()
        let session = try HKWorkoutSession(healthStore: pair.primary, configuration: Self.cycling())
        session.delegate = primaryCalls
        // Mirrored before it starts, as Apple's sample does: the start reaches the companion as a state change.
        try await session.startMirroringToCompanionDevice()
        var sessions = pair.sessions.makeAsyncIterator()
        let mirrored = try #require(await sessions.next())
        #expect(mirrored.state == .notStarted)
        session.startActivity(with: t0)
        var companion = companionCalls.calls.makeAsyncIterator()
        #expect(await companion.next() == .state(from: .notStarted, to: .running, date: t0))
        #expect(mirrored.startDate == t0)
        // The mirrored session's builder is the companion's and records nothing (the primary's saves the workout).
        let companionBuilder = mirrored.associatedWorkoutBuilder()
        #expect(companionBuilder.workoutSession === mirrored)
        await expectHKError(.errorInvalidArgument) { try await companionBuilder.beginCollection(at: t0) }
        await expectHKError(.errorInvalidArgument) { _ = try await companionBuilder.finishWorkout() }
        await expectHKError(.errorInvalidArgument) { try await mirrored.stopMirroringToCompanionDevice() }
        await expectHKError(.errorInvalidArgument) { try await mirrored.startMirroringToCompanionDevice() }
        try await session.stopMirroringToCompanionDevice()
        #expect(await companion.next() == .disconnected(withError: false))
        var primary = primaryCalls.calls.makeAsyncIterator()
        #expect(await primary.next() == .state(from: .notStarted, to: .running, date: t0))
        #expect(await primary.next() == .disconnected(withError: false))
        // The mirrored session no longer follows: a pause on the primary stays there.
        session.pause()
        #expect(await primary.next() == .state(from: .running, to: .paused, date: t0))
        #expect(mirrored.state == .running)
        await expectHKError(.errorNoData) { try await session.sendToRemoteWorkoutSession(data: Data([1])) }
        // And mirroring can start again.
        try await session.startMirroringToCompanionDevice()
        let again = try #require(await sessions.next())
        #expect(again.state == .paused)
    }

    /// A triathlon's legs on the primary reach the mirrored session's delegate and its `currentActivity`; the last leg
    /// ends with the session, before the change to `.ended`.
    @Test func activitiesOfThePrimaryAreMirrored() async throws {
        let companionCalls = MirrorCallRecorder()
        let pair = try await Self.pair(recorder: companionCalls)
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .swimBikeRun
        let session = try HKWorkoutSession(healthStore: pair.primary, configuration: configuration)
        session.startActivity(with: t0)
        try await session.startMirroringToCompanionDevice()
        var sessions = pair.sessions.makeAsyncIterator()
        let mirrored = try #require(await sessions.next())
        var companion = companionCalls.calls.makeAsyncIterator()
        let swim = HKWorkoutConfiguration()
        swim.activityType = .swimming
        let bike = HKWorkoutConfiguration()
        bike.activityType = .cycling
        session.beginNewActivity(configuration: swim, date: t0, metadata: ["leg": 1])
        #expect(await companion.next() == .activityBegan(.swimming, t0))
        #expect(mirrored.currentActivity.workoutConfiguration.activityType == .swimming)
        session.beginNewActivity(configuration: bike, date: t0 + 900, metadata: nil)
        #expect(await companion.next() == .activityEnded(.swimming, t0 + 900))
        #expect(await companion.next() == .activityBegan(.cycling, t0 + 900))
        pair.clock.advance(by: 3600)
        session.end()
        #expect(await companion.next() == .activityEnded(.cycling, t0 + 3600))
        #expect(await companion.next() == .state(from: .running, to: .ended, date: t0 + 3600))
        #expect(await companion.next() == .disconnected(withError: false))
        // Activities on the mirrored session itself are ignored: the primary begins them.
        #expect(mirrored.currentActivity.workoutConfiguration.activityType == .swimBikeRun)
    }

    @Test func onlyOneCompanionWaitsPerStoreFile() async throws {
        let pair = try await Self.pair(recorder: MirrorCallRecorder())
        let second = try HKHealthStore(databasePath: pair.directory.file("health.sqlite"), clientIdentifier: "tablet")
        second.workoutSessionMirroringStartHandler = { _ in }
        #expect(
            second.workoutSessionMirroringError?.message
                == "Another companion is already waiting for mirrored workouts on the store \(pair.directory.file("health.sqlite"))."
        )
        // The socket beside the store is the owner's only (mode 0600).
        let attributes = try FileManager.default.attributesOfItem(atPath: pair.directory.file("health.sqlite.mirror"))
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        // Unsetting the handler stops waiting: the socket file goes, and a primary finds no companion.
        pair.companion.workoutSessionMirroringStartHandler = nil
        #expect(!FileManager.default.fileExists(atPath: pair.directory.file("health.sqlite.mirror")))
        let session = try HKWorkoutSession(healthStore: pair.primary, configuration: Self.cycling())
        await expectHKError(.errorNoData) { try await session.startMirroringToCompanionDevice() }
    }

    /// A primary written by hand, byte by byte, that vanishes without `stop`: the companion's session hears the
    /// disconnection with an error. The bytes are the frames `MirrorFrame` documents, written out here.
    @Test func aPrimaryThatVanishesDisconnectsTheCompanionWithAnError() async throws {
        let companionCalls = MirrorCallRecorder()
        let pair = try await Self.pair(recorder: companionCalls)
        let primary = try UnixStreamConnection.connect(path: pair.directory.file("health.sqlite.mirror"))
        let start: [UInt8] = [
            0x01, 0x11, 0x00, 0x00, 0x00,  // kind start, payload 17 bytes (1 + 4 + 1 + 1 + 1 + 1 + 8)
            0x01,  // version 1
            0x0D, 0x00, 0x00, 0x00,  // activity type 13 (cycling)
            0x03, 0x00,  // location 3 (outdoor), swimming location 0 (unknown)
            0x02, 0x01,  // state 2 (running), has a start date
            0x00, 0x00, 0x00, 0x00, 0x84, 0xD7, 0xC7, 0x41,  // 800 000 000 s: struct.pack('<d', 8e8)
        ]
        try await primary.write(start)
        #expect(try await primary.read(capacity: 16) == [0x02, 0x01, 0x00, 0x00, 0x00, 0x01])  // accepted, version 1
        var sessions = pair.sessions.makeAsyncIterator()
        let mirrored = try #require(await sessions.next())
        #expect(mirrored.workoutConfiguration.activityType == .cycling)
        #expect(mirrored.workoutConfiguration.locationType == .outdoor)
        #expect(mirrored.state == .running)
        #expect(mirrored.startDate == t0)
        let state: [UInt8] = [
            0x03, 0x0A, 0x00, 0x00, 0x00,  // kind state, payload 10 bytes
            0x02, 0x04,  // running → paused
            0x00, 0x00, 0x40, 0x1E, 0x84, 0xD7, 0xC7, 0x41,  // 800 000 060.5 s: struct.pack('<d', 800000060.5)
        ]
        try await primary.write(state)
        var companion = companionCalls.calls.makeAsyncIterator()
        #expect(await companion.next() == .state(from: .running, to: .paused, date: t0 + 60.5))
        primary.close()
        #expect(await companion.next() == .disconnected(withError: true))
        let error = try #require(companionCalls.disconnectionError as? HKError)
        #expect(error.message == "The other side of the mirrored workout went away without stopping mirroring.")
    }
}

/// The answer timeouts, on a test clock: neither side waits forever for the other's first frame.
@Suite(.timeLimit(.minutes(1))) struct MirroringTimeoutTests {
    /// A "companion" that accepts the connection and never answers: the primary gives up after 5 s of its clock.
    @Test func aCompanionThatNeverAnswersFailsTheStartAfterFiveSeconds() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("health.sqlite")
        let clock = ManualClock()
        let store = try HKHealthStore(
            databasePath: path, clientIdentifier: "watch", clocks: LiveClocks(monotonic: clock))
        let silent = try UnixStreamListener(path: path + ".mirror")
        defer { silent.close() }
        let session = try HKWorkoutSession(healthStore: store, configuration: MirroringTests.cycling())
        let attempt = Task { try await session.startMirroringToCompanionDevice() }
        let accepted = try await silent.accept()
        defer { accepted.close() }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        let error = await expectHKError(.errorNoData) { try await attempt.value }
        #expect(error?.message == "The companion did not answer the mirroring request within 5.0 seconds.")
    }

    /// A "primary" that connects and says nothing: the companion closes the connection after 5 s of its clock.
    @Test func aPrimaryThatSaysNothingIsDroppedAfterFiveSeconds() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("health.sqlite")
        let clock = ManualClock()
        let companion = try HKHealthStore(
            databasePath: path, clientIdentifier: "phone", clocks: LiveClocks(monotonic: clock))
        companion.workoutSessionMirroringStartHandler = { _ in Issue.record("no session should start") }
        let mute = try UnixStreamConnection.connect(path: path + ".mirror")
        defer { mute.close() }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        #expect(try await mute.read(capacity: 16) == [])  // the end of the stream
    }
}

/// The companion's accept loop goes on past errors that concern one connection, and stops (saying so) on others.
@Suite struct MirrorAcceptErrorTests {
    @Test func aConnectionAbortedBeforeAcceptIsTransientAClosedSocketIsNot() {
        func error(_ code: Int32) -> BlueZError { BlueZError(.system, "accept failed", errno: Errno(rawValue: code)) }
        #expect(MirrorCompanion.isTransient(error(ECONNABORTED)))
        #expect(MirrorCompanion.isTransient(error(EINTR)))
        #expect(MirrorCompanion.isTransient(error(EPROTO)))
        #expect(!MirrorCompanion.isTransient(error(EBADF)))
        #expect(!MirrorCompanion.isTransient(error(EINVAL)))
        #expect(!MirrorCompanion.isTransient(BlueZError(.system, "no errno")))
    }
}
