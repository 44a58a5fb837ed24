import FitnessSensors
import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// Records what a session's delegate hears, in order.
final class SessionRecorder: HKWorkoutSessionDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var storedCalls: [String] = []
    var calls: [String] { lock.withLock { storedCalls } }

    private func note(_ call: String) { lock.withLock { storedCalls.append(call) } }

    func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
        from fromState: HKWorkoutSessionState, date: Date
    ) {
        note("\(fromState.name)→\(toState.name)@\(Int(date.timeIntervalSince(t0)))")
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {
        note("failed(\((error as? HKError)?.code.rawValue ?? -1))")
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didGenerate event: HKWorkoutEvent) {
        note("event(\(event.type.name))@\(Int(event.dateInterval.start.timeIntervalSince(t0)))")
    }

    func workoutSession(
        _ workoutSession: HKWorkoutSession, didBeginActivityWith workoutConfiguration: HKWorkoutConfiguration,
        date: Date
    ) {
        note("begin(\(workoutConfiguration.activityType.name))@\(Int(date.timeIntervalSince(t0)))")
    }

    func workoutSession(
        _ workoutSession: HKWorkoutSession, didEndActivityWith workoutConfiguration: HKWorkoutConfiguration,
        date: Date
    ) {
        note("end(\(workoutConfiguration.activityType.name))@\(Int(date.timeIntervalSince(t0)))")
    }
}

/// A wall clock the test moves by hand.
final class ManualWallClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    /// The store's monotonic clock (journal flushes, delivery spacing): it moves only when a test advances it.
    let monotonic = ManualClock()
    init(_ start: Date) { current = start }
    var now: Date { lock.withLock { current } }
    func set(_ offset: TimeInterval) { lock.withLock { current = t0 + offset } }
}

/// An authorized store (in memory, or the file at `databasePath`) whose wall clock is a manual one at `t0`, and whose
/// monotonic clock is a manual one that no timer moves: a test advances it (`clock.monotonic.advance(by:)`) to run
/// the journal's flush timer. Deliveries to the delegate are not spaced, unless `deliverySpacing` says otherwise.
func liveStore(
    client: String = "tests", databasePath: String? = nil,
    deliverySpacing: Duration = .zero
) async throws -> (HKHealthStore, ManualWallClock) {
    let store = try await authorizedStore(client: client, databasePath: databasePath)
    let clock = ManualWallClock(t0)
    store.clocks = LiveClocks(wall: { clock.now }, monotonic: clock.monotonic, deliverySpacing: deliverySpacing)
    return (store, clock)
}

/// A session of `store` (cycling unless `activity` says otherwise) recording from one scripted strap through a live
/// data source, collecting since `t0`.
func strapRecording(
    _ store: HKHealthStore, activity: HKWorkoutActivityType = .cycling
) async throws -> (session: HKWorkoutSession, builder: HKLiveWorkoutBuilder, strap: ScriptedSensor) {
    let session = try HKWorkoutSession(healthStore: store, configuration: configuration(activity))
    let builder = session.associatedWorkoutBuilder()
    let strap = ScriptedSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap)
    let source = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration(activity))
    source.attach(strap)
    builder.dataSource = source
    session.startActivity(with: t0)
    try await builder.beginCollection(at: t0)
    return (session, builder, strap)
}

func configuration(
    _ type: HKWorkoutActivityType, location: HKWorkoutSessionLocationType = .outdoor
) -> HKWorkoutConfiguration {
    let configuration = HKWorkoutConfiguration()
    configuration.activityType = type
    configuration.locationType = location
    if type == .swimming { configuration.swimmingLocationType = .openWater }
    return configuration
}

@Suite(.timeLimit(.minutes(1))) struct SessionTests {
    @Test func transitionTableIsHealthKits() {
        typealias S = HKWorkoutSessionState
        let table: [S: [SessionStateMachine.Request: S]] = [
            .notStarted: [.prepare: .prepared, .start: .running, .fail: .ended],
            .prepared: [.start: .running, .end: .ended, .fail: .ended],
            .running: [.pause: .paused, .stop: .stopped, .end: .ended, .fail: .ended],
            .paused: [.resume: .running, .stop: .stopped, .end: .ended, .fail: .ended],
            .stopped: [.end: .ended, .fail: .ended],
            .ended: [:],
        ]
        let requests: [SessionStateMachine.Request] = [.prepare, .start, .pause, .resume, .stop, .end, .fail]
        for (state, row) in table {
            for request in requests {
                var machine = SessionStateMachine(state: state, startDate: nil, endDate: nil)
                let actions = machine.handle(request, at: t0)
                if let target = row[request] {
                    #expect(machine.state == target, "\(state) + \(request)")
                    #expect(actions.first == .transition(from: state, to: target, date: t0))
                } else {
                    #expect(machine.state == state, "\(state) + \(request) must be ignored")
                    #expect(actions == [.ignored(request, state)])
                }
            }
        }
        #expect(HKWorkoutSessionState.allCases.map(\.rawValue).sorted() == [1, 2, 3, 4, 5, 6])
    }

    @Test func delegateHearsChangesInOrderAndIgnoredCallsChangeNothing() async throws {
        let (store, clock) = try await liveStore()
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration(.running))
        let recorder = SessionRecorder()
        session.delegate = recorder
        session.pause()  // not running: ignored
        session.prepare()
        clock.set(10)
        session.startActivity(with: nil)
        session.resume()  // running: ignored
        clock.set(100)
        session.pause()
        clock.set(160)
        session.resume()
        clock.set(300)
        session.stopActivity(with: nil)
        session.pause()  // stopped: ignored
        clock.set(310)
        session.end()
        await session.waitForDelegateCalls()
        #expect(
            recorder.calls == [
                "not started→prepared@0", "prepared→running@10",
                "running→paused@100", "event(pause)@100", "paused→running@160", "event(resume)@160",
                "running→stopped@300", "stopped→ended@310",
            ])
        #expect(session.state == .ended)
        #expect(session.startDate == t0 + 10 && session.endDate == t0 + 310)
    }

    @Test func invalidConfigurationsThrow() async throws {
        let (store, _) = try await liveStore()
        let swim = HKWorkoutConfiguration()
        swim.activityType = .swimming
        await expectHKError(.errorInvalidArgument) { _ = try HKWorkoutSession(healthStore: store, configuration: swim) }
        let dive = HKWorkoutConfiguration()
        dive.activityType = .underwaterDiving
        await expectHKError(.errorWorkoutActivityNotAllowed) {
            _ = try HKWorkoutSession(healthStore: store, configuration: dive)
        }
    }

    @Test func startingAnotherSessionFailsTheFirst() async throws {
        let (store, _) = try await liveStore()
        let first = try HKWorkoutSession(healthStore: store, configuration: configuration(.running))
        let recorder = SessionRecorder()
        first.delegate = recorder
        first.startActivity(with: t0)
        let second = try HKWorkoutSession(healthStore: store, configuration: configuration(.cycling))
        second.startActivity(with: t0 + 5)
        await first.waitForDelegateCalls()
        #expect(recorder.calls == ["not started→running@0", "failed(8)", "running→ended@5"])
        #expect(second.state == .running)
    }

    @Test func associatedBuilderIsCreatedOnce() async throws {
        let (store, _) = try await liveStore()
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration(.running))
        let builder = session.associatedWorkoutBuilder()
        #expect(builder === session.associatedWorkoutBuilder())
        #expect(builder.workoutSession === session)
        #expect(builder.shouldCollectWorkoutEvents)
        #expect(session.currentActivity.workoutConfiguration.activityType == .running)
    }
}
