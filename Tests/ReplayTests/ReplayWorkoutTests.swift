import FitnessSensors
import Foundation
import OpenHealthKit
import Testing

/// Fixtures from `fixtures/` replayed through HKWorkoutSession + HKLiveWorkoutBuilder + HKLiveWorkoutDataSource,
/// checked against figures computed straight from the file's bytes.
@Suite(.timeLimit(.minutes(1))) struct ReplayWorkoutTests {
    static func fixture(_ name: String) -> String { GeneratorTests.fixtures.appendingPathComponent(name).path }

    static func store() async throws -> HKHealthStore {
        let store = HKHealthStore.inMemory(clientIdentifier: "replay-tests")
        let types: Set<HKSampleType> = [
            .workoutType(), HKQuantityType(.heartRate), HKQuantityType(.cyclingPower),
            HKQuantityType(.cyclingCadence), HKQuantityType(.cyclingSpeed),
            HKQuantityType(.distanceCycling), HKQuantityType(.activeEnergyBurned),
        ]
        try await store.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
        return store
    }

    /// What a plain scan of the file says: power and heart-rate values outside pauses, and the pauses' length.
    struct Expected {
        var watts: [Double] = []
        var bpm: [Double] = []
        var paused: TimeInterval = 0
        var end: TimeInterval = 0
        var laps = 0
        var markers = 0
        var malformed = 0
    }

    static func scan(_ path: String) throws -> Expected {
        let reader = try FixtureReader(path: path)
        var expected = Expected()
        var pausedAt: TimeInterval?
        while let event = try reader.next() {
            expected.end = event.seconds
            switch event.kind {
            case let .notification(_, characteristic, bytes):
                guard let payload = try? SensorPayload.decode(characteristic: characteristic, bytes: bytes) else {
                    expected.malformed += 1
                    continue
                }
                guard pausedAt == nil else { continue }
                if case .cyclingPowerMeasurement(let power) = payload {
                    expected.watts.append(Double(power.instantaneousPower))
                }
                if case .heartRateMeasurement(let heart) = payload { expected.bpm.append(Double(heart.heartRate)) }
            case .action(.pause): pausedAt = event.seconds
            case .action(.resume):
                expected.paused += event.seconds - pausedAt!
                pausedAt = nil
            case .action(.lap): expected.laps += 1
            case .action(.marker): expected.markers += 1
            default: break
            }
        }
        return expected
    }

    @Test func intervalsWithPausesAndLaps() async throws {
        let path = Self.fixture("intervals-pauses-laps.jsonl")
        let expected = try Self.scan(path)
        let store = try await Self.store()
        let replay = try WorkoutReplay(fixtureAt: path, healthStore: store)
        let workout = try await replay.run(pace: .instant)

        #expect(replay.session.state == .ended)
        #expect(workout.startDate == replay.summary.header.startDate)
        // 42 minutes recorded, two 60-second pauses.
        #expect(expected.paused == 120)
        #expect(workout.duration == expected.end - expected.paused)
        #expect(workout.duration == 40 * 60)
        // Power is averaged as a plain mean; nothing arrives while paused.
        let power = try #require(workout.statistics(for: HKQuantityType(.cyclingPower)))
        let mean = expected.watts.reduce(0, +) / Double(expected.watts.count)
        #expect(abs(try #require(power.averageQuantity()).doubleValue(for: .watt()) - mean) < 1e-9)
        #expect(power.maximumQuantity()?.doubleValue(for: .watt()) == expected.watts.max())
        let heart = try #require(workout.statistics(for: HKQuantityType(.heartRate)))
        let bpm = HKUnit.count().unitDivided(by: .minute())
        #expect(heart.maximumQuantity()?.doubleValue(for: bpm) == expected.bpm.max())
        #expect(heart.minimumQuantity()?.doubleValue(for: bpm) == expected.bpm.min())
        let samples = try await HKSampleQueryDescriptor(
            predicates: [
                .quantitySample(type: HKQuantityType(.heartRate), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: []
        ).result(for: store)
        #expect(samples.count == expected.bpm.count)
        let events = workout.workoutEvents ?? []
        #expect(events.filter { $0.type == .lap }.count == expected.laps)
        #expect(expected.laps == 11)
        #expect(events.filter { $0.type == .marker }.count == expected.markers)
        #expect(events.filter { $0.type == .pause }.count == 2)
        #expect(replay.malformedNotifications == 0)
    }

    @Test func malformedNotificationsAreCountedAndSkipped() async throws {
        let path = Self.fixture("malformed-notifications.jsonl")
        let expected = try Self.scan(path)
        let store = try await Self.store()
        let replay = try WorkoutReplay(fixtureAt: path, healthStore: store)
        let workout = try await replay.run(pace: .instant)
        #expect(expected.malformed == 16)
        #expect(replay.malformedNotifications == expected.malformed)
        let samples = try await HKSampleQueryDescriptor(
            predicates: [
                .quantitySample(type: HKQuantityType(.heartRate), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: []
        ).result(for: store)
        #expect(samples.count == expected.bpm.count)
        #expect(samples.count == 600 - 16)
    }

    /// A replay reads the fixture's sensors only: a sensor the store has paired is not connected, not listed, and
    /// not kept with the workout (it used to be connected and listed as "never connected").
    @Test func aReplayLeavesThePairedSensorsAlone() async throws {
        final class Connections: @unchecked Sendable { var count = 0 }
        let connections = Connections()
        let store = try await Self.store()
        store.sensorConnector = SensorConnector(schemes: ["test"]) { paired in
            connections.count += 1
            return ScriptedSensor(identifier: paired.identifier, name: paired.name, capabilities: paired.capabilities)
        }
        try await store.pairSensor(
            PairedSensor(identifier: "test:strap", name: "Paired strap", capabilities: .heartRateStrap))
        let replay = try WorkoutReplay(fixtureAt: Self.fixture("malformed-notifications.jsonl"), healthStore: store)
        let workout = try await replay.run(pace: .instant)
        #expect(connections.count == 0)
        #expect(replay.dataSource.sensorStatuses.map(\.name) == ["Polar H10 8A1C2D3E"])
        #expect(try await store.workoutSensors(for: workout).map(\.device.name) == ["Polar H10 8A1C2D3E"])
    }

    @Test func triathlonLegsBecomeActivities() async throws {
        let store = try await Self.store()
        let replay = try WorkoutReplay(fixtureAt: Self.fixture("triathlon-swim-bike-run.jsonl"), healthStore: store)
        let workout = try await replay.run(pace: .instant)
        #expect(workout.workoutActivityType == .swimBikeRun)
        #expect(
            workout.workoutActivities.map(\.workoutConfiguration.activityType) == [
                .swimming, .transition, .cycling, .transition, .running,
            ])
        #expect(workout.workoutActivities.map { $0.duration } == [900, 180, 2400, 120, 1200])
        // Power is collected on the bike only.
        let cycling = workout.workoutActivities[2]
        #expect(cycling.statistics(for: HKQuantityType(.cyclingPower))?.averageQuantity() != nil)
        #expect(workout.workoutActivities[0].statistics(for: HKQuantityType(.cyclingPower)) == nil)
    }

    @Test func pacedReplaySleepsOnTheStoreClock() async throws {
        // A run at 600× on a virtual clock that records every sleep and returns at once: the replay must sleep
        // 600 s of fixture / 600 = 1 s in total, in order, and the sessions' dates follow fixture time.
        let store = try await Self.store()
        let clock = VirtualClock()
        store.clock = clock
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let replay = try WorkoutReplay(
            fixtureAt: Self.fixture("malformed-notifications.jsonl"), healthStore: store, start: start, instant: false)
        let workout = try await replay.run(pace: .speed(600))
        let slept = clock.now.offset
        #expect(slept >= .milliseconds(990) && slept <= .milliseconds(1010), "slept \(slept)")
        #expect(clock.sleeps > 100)  // paced reading by reading, not in one sleep
        #expect(workout.startDate == start)
        #expect(workout.endDate == start + 600)
    }
}

/// A clock whose sleeps return at once, moving its time to the deadline: pacing is checked without waiting.
final class VirtualClock: Clock, @unchecked Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var count = 0
    var now: Instant { lock.withLock { current } }
    var minimumResolution: Duration { .zero }
    var sleeps: Int { lock.withLock { count } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        lock.withLock {
            count += 1
            if deadline > current { current = deadline }
        }
    }
}
