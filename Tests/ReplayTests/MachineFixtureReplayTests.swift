import FitnessSensors
import FixtureSynthesis
import Foundation
import OpenHealthKit
import Testing

/// The foot-pod and fitness-machine fixtures: the generator reproduces them byte for byte, and each replays through
/// the live path to the figures its own bytes give.
@Suite(.timeLimit(.minutes(1))) struct MachineFixtureReplayTests {
    static func path(_ fixture: MachineFixture) -> String {
        GeneratorTests.fixtures.appendingPathComponent(fixture.fileName).path
    }

    @Test(arguments: MachineFixture.allCases)
    func generatorReproducesTheCommittedFile(_ fixture: MachineFixture) throws {
        let path = NSTemporaryDirectory() + "ohk-machine-" + UUID().uuidString + ".jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try fixture.generate(to: path)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: path))
                == Data(contentsOf: URL(fileURLWithPath: Self.path(fixture))))
    }

    static func replay(_ fixture: MachineFixture) async throws -> (HKHealthStore, HKWorkout, WorkoutReplay) {
        let store = HKHealthStore.inMemory(clientIdentifier: "machine-replay-tests")
        let types = HKLiveWorkoutDataSource.collectableTypes
        try await store.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
        let replay = try WorkoutReplay(fixtureAt: path(fixture), healthStore: store)
        return (store, try await replay.run(pace: .instant), replay)
    }

    /// The workout's samples of a type, by start.
    static func samples(
        _ identifier: HKQuantityTypeIdentifier, of workout: HKWorkout, in store: HKHealthStore
    ) async throws -> [HKQuantitySample] {
        try await HKSampleQueryDescriptor(
            predicates: [
                .quantitySample(type: HKQuantityType(identifier), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: [SortDescriptor(\.startDate)]
        ).result(for: store)
    }

    static func values(
        _ identifier: HKQuantityTypeIdentifier, unit: HKUnit, of workout: HKWorkout,
        in store: HKHealthStore
    ) async throws -> [Double] {
        try await samples(identifier, of: workout, in: store).map { $0.quantity.doubleValue(for: unit) }
    }

    /// The file's RSC values, read straight from its bytes.
    static func measurements<Value: GATTCharacteristicValue>(
        _: Value.Type, in fixture: MachineFixture
    ) throws -> [Value] {
        let reader = try FixtureReader(path: path(fixture))
        var values: [Value] = []
        while let event = try reader.next() {
            if case let .notification(_, characteristic, bytes) = event.kind, characteristic == Value.characteristicUUID
            {
                values.append(try Value(bytes: bytes))
            }
        }
        return values
    }

    @Test func footPodRun() async throws {
        let (store, workout, replay) = try await Self.replay(.footPod)
        let pod = try Self.measurements(RSCMeasurement.self, in: .footPod)
        #expect(replay.malformedNotifications == 0)
        let speeds = try await Self.values(.runningSpeed, unit: HKUnit(from: "m/s"), of: workout, in: store)
        #expect(speeds.count == pod.count)
        // Distance: the pod's last total minus its first (the first is the baseline).
        let distance = try await Self.values(.distanceWalkingRunning, unit: .meter(), of: workout, in: store).reduce(
            0, +)
        let podDistance = (pod.last!.totalDistanceMetres! - pod.first!.totalDistanceMetres!)
        #expect(abs(distance - podDistance) < 0.01)
        // Steps: cadence × time, about 173 a minute for 20 minutes.
        let steps = try await Self.values(.stepCount, unit: .count(), of: workout, in: store).reduce(0, +)
        #expect(abs(steps - 173 * 20) < 173)
        #expect(try await Self.values(.runningStrideLength, unit: .meter(), of: workout, in: store).count == pod.count)
    }

    /// The trainer: a split record every fifth second counts once; after the control session at 5:00 power follows
    /// 250 W; the control point and status lines make no samples and are not malformed.
    @Test func smartTrainerWithControlSession() async throws {
        let (store, workout, replay) = try await Self.replay(.trainer)
        #expect(replay.malformedNotifications == 0)
        let records = try Self.measurements(IndoorBikeData.self, in: .trainer)
        let complete = records.filter { !$0.hasMoreData }.count
        let power = try await Self.values(.cyclingPower, unit: .watt(), of: workout, in: store)
        #expect(power.count == complete)
        #expect(records.count - complete == 240)
        // Before the session the trainer holds 150 W; the last minutes hold 250 W (±4 W of ripple).
        #expect(power.prefix(500).allSatisfy { abs($0 - 150) <= 5 })
        #expect(power.suffix(200).allSatisfy { abs($0 - 250) <= 5 })
        let cadence = try await Self.values(.cyclingCadence, unit: HKUnit(from: "count/min"), of: workout, in: store)
        #expect(cadence.count == complete)
    }

    /// The plan ride: the trainer followed the plan the generator's `PlanRunner` ran, so each step's second half
    /// holds the step's power (within 5 %, the trainer's ripple and lag aside), read back from the store after a replay
    /// through the live path; the control point's answers and the status lines make no samples and are not malformed.
    @Test func aWholePlanRide() async throws {
        let (store, workout, replay) = try await Self.replay(.planRide)
        #expect(replay.malformedNotifications == 0)
        #expect(abs(workout.duration - 3000) < 2, "\(workout.duration)")
        let watts = try await Self.samples(.cyclingPower, of: workout, in: store).map {
            ($0.startDate.timeIntervalSince(workout.startDate), $0.quantity.doubleValue(for: .watt()))
        }
        var start = 0.0
        for step in MachineFixture.planSteps {
            guard case .time(let length) = step.goal, case .threshold(let target) = step.power else {
                Issue.record("\(step.name): a timed step at a threshold was expected")
                continue
            }
            let half = watts.filter { $0.0 >= start + length / 2 && $0.0 < start + length }.map(\.1)
            let average = half.reduce(0, +) / Double(max(1, half.count))
            #expect(!half.isEmpty && abs(average - target) / target <= 0.05, "\(step.name): \(average) W")
            start += length
        }
        #expect(start == 3000)
        // The targets the trainer announced: each step's, and the ramps' points between them.
        let announced = try Self.measurements(FitnessMachineStatus.self, in: .planRide).map(\.parameters)
        let targets = Set(announced.map { Int($0[0]) | Int($0[1]) << 8 })
        #expect(targets.isSuperset(of: [120, 150, 280]))
        #expect(targets.allSatisfy { (120 ... 280).contains($0) })
    }

    @Test func treadmillRunCarriesIncline() async throws {
        let (store, workout, _) = try await Self.replay(.treadmill)
        let samples = try await Self.samples(.runningSpeed, of: workout, in: store)
        #expect(samples.count == 1200)
        let inclines = samples.compactMap {
            ($0.metadata?[OHKMetadataKeyTreadmillIncline] as? HKQuantity)?.doubleValue(for: .percent())
        }
        #expect(inclines.count == 1200)
        #expect(Set(inclines.map { ($0 * 1000).rounded() }) == [10, 40])
        let distance = try await Self.values(.distanceWalkingRunning, unit: .meter(), of: workout, in: store).reduce(
            0, +)
        let records = try Self.measurements(TreadmillData.self, in: .treadmill)
        #expect(distance == Double(records.last!.totalDistance! - records.first!.totalDistance!))
    }

    @Test func rower() async throws {
        let (store, workout, _) = try await Self.replay(.rower)
        #expect(workout.workoutActivityType == .rowing)
        let records = try Self.measurements(RowerData.self, in: .rower)
        let distance = try await Self.values(.distanceRowing, unit: .meter(), of: workout, in: store).reduce(0, +)
        #expect(distance == Double(records.last!.totalDistance! - records.first!.totalDistance!))
        let speeds = try await Self.values(.rowingSpeed, unit: HKUnit(from: "m/s"), of: workout, in: store)
        #expect(speeds.count == 600)
        #expect(speeds.allSatisfy { (3.9 ... 4.4).contains($0) })
    }
}
