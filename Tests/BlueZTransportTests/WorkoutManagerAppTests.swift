import BlueZTransport
import FitnessSensors
import Foundation
import OpenHealthKit
import Synchronization
import TestSupport
import Testing

/// The `WorkoutManager` of Apple's sample "Building a workout app for Apple Watch", written as the sample writes it
/// (both delegates, figures updated from `didCollectDataOf`, collection ended and the workout finished when the
/// session reaches `.ended`) with only its import changed, against a simulated strap and power meter paired with
/// the store. The test gives the store a connector of its own that reaches the simulated peripherals over socket
/// pairs (an app gets BlueZ's by default); the app's code makes no extra call.
final class WorkoutManager: NSObject, HKWorkoutSessionDelegate, HKLiveWorkoutBuilderDelegate, @unchecked Sendable {
    let healthStore: HKHealthStore
    var session: HKWorkoutSession?
    var builder: HKLiveWorkoutBuilder?
    private let figures = Mutex((heartRate: 0.0, averageHeartRate: 0.0, activeEnergy: 0.0, workout: HKWorkout?.none))
    /// Each heart rate the manager shows, and the finished workout: what the test waits on.
    let shown = AsyncStream<Double>.makeStream()
    let finished = AsyncStream<HKWorkout?>.makeStream()

    init(healthStore: HKHealthStore) { self.healthStore = healthStore }

    var heartRate: Double { figures.withLock { $0.heartRate } }
    var activeEnergy: Double { figures.withLock { $0.activeEnergy } }

    // The sample's authorization: share the workout type only; read what it shows and the activity rings.
    func requestAuthorization() async throws {
        let typesToShare: Set = [HKQuantityType.workoutType()]
        let typesToRead: Set = [
            HKQuantityType.quantityType(forIdentifier: .heartRate)!,
            HKQuantityType.quantityType(forIdentifier: .activeEnergyBurned)!,
            HKQuantityType.quantityType(forIdentifier: .distanceCycling)!,
            HKObjectType.activitySummaryType(),
        ]
        try await healthStore.requestAuthorization(toShare: typesToShare, read: typesToRead)
    }

    func startWorkout(workoutType: HKWorkoutActivityType) {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = workoutType
        configuration.locationType = .outdoor
        do {
            session = try HKWorkoutSession(healthStore: healthStore, configuration: configuration)
            builder = session?.associatedWorkoutBuilder()
        } catch {
            return
        }
        session?.delegate = self
        builder?.delegate = self
        builder?.dataSource = HKLiveWorkoutDataSource(healthStore: healthStore, workoutConfiguration: configuration)
        let startDate = Date()
        session?.startActivity(with: startDate)
        builder?.beginCollection(withStart: startDate) { _, _ in }
    }

    func endWorkout() { session?.end() }

    func updateForStatistics(_ statistics: HKStatistics?) {
        guard let statistics else { return }
        switch statistics.quantityType {
        case HKQuantityType.quantityType(forIdentifier: .heartRate):
            let unit = HKUnit.count().unitDivided(by: HKUnit.minute())
            let value = statistics.mostRecentQuantity()?.doubleValue(for: unit) ?? 0
            figures.withLock {
                $0.heartRate = value
                $0.averageHeartRate = statistics.averageQuantity()?.doubleValue(for: unit) ?? 0
            }
            shown.continuation.yield(value)
        case HKQuantityType.quantityType(forIdentifier: .activeEnergyBurned):
            let energyUnit = HKUnit.kilocalorie()
            figures.withLock { $0.activeEnergy = statistics.sumQuantity()?.doubleValue(for: energyUnit) ?? 0 }
        default:
            return
        }
    }

    // MARK: HKWorkoutSessionDelegate

    func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
        from fromState: HKWorkoutSessionState, date: Date
    ) {
        if toState == .ended {
            builder?.endCollection(withEnd: date) { _, _ in
                self.builder?.finishWorkout { workout, _ in
                    self.figures.withLock { $0.workout = workout }
                    self.finished.continuation.yield(workout)
                }
            }
        }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: Error) {}

    // MARK: HKLiveWorkoutBuilderDelegate

    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {}

    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {
        for type in collectedTypes {
            guard let quantityType = type as? HKQuantityType else { return }
            let statistics = workoutBuilder.statistics(for: quantityType)
            updateForStatistics(statistics)
        }
    }
}

@Suite(.timeLimit(.minutes(1))) struct WorkoutManagerAppTests {
    @Test func theSampleRecordsAndFinishesARideFromPairedSimulatedSensors() async throws {
        let directory = NSTemporaryDirectory() + "ohk-app-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try HKHealthStore(databasePath: directory + "/health.sqlite", clientIdentifier: "WorkoutApp")

        // Two simulated peripherals, reached through a connector of this test's own.
        let strap = SimulatedPeripheral(profile: .heartRateStrap())
        let meter = SimulatedPeripheral(profile: .powerMeter())
        let links = ["strap": SocketPairLink(strap), "meter": SocketPairLink(meter)]
        let clock = ManualClock()
        store.sensorConnector = SensorConnector(schemes: ["app-test"]) { paired in
            guard let link = links[String(paired.identifier.dropFirst("app-test:".count))] else {
                throw HKError(.errorInvalidArgument, "No simulated peripheral \(paired.identifier).")
            }
            return BLESensor(
                identifier: paired.identifier, name: paired.name, capabilities: paired.capabilities, clock: clock,
                connect: link.connect)
        }
        try await store.pairSensor(
            PairedSensor(identifier: "app-test:strap", name: "Strap", capabilities: .heartRateStrap))
        try await store.pairSensor(PairedSensor(identifier: "app-test:meter", name: "Meter", capabilities: .powerMeter))

        let manager = WorkoutManager(healthStore: store)
        try await manager.requestAuthorization()
        manager.startWorkout(workoutType: .cycling)
        try await strap.waitForMeasurementSubscriptions(1)
        try await meter.waitForMeasurementSubscriptions(1)

        // Five notifications from each; the bpm the strap sends come from the simulator's own signal.
        var signal = HeartRateSignal()
        var sent: [Double] = []
        var shown = manager.shown.stream.makeAsyncIterator()
        for _ in 0 ..< 5 {
            sent.append(Double(signal.next().heartRate))
            _ = await strap.step()
            _ = await meter.step()
            // The manager shows the heart rate just sent once the builder has delivered it.
            while let value = await shown.next(), value != sent.last! {}
        }
        #expect(manager.heartRate == sent.last)

        manager.endWorkout()
        var finished = manager.finished.stream.makeAsyncIterator()
        let workout = try #require(await finished.next() ?? nil)
        let statistics = try #require(workout.statistics(for: HKQuantityType(.heartRate)))
        let bpm = HKUnit(from: "count/min")
        #expect(statistics.maximumQuantity()?.doubleValue(for: bpm) == sent.max())
        #expect(statistics.minimumQuantity()?.doubleValue(for: bpm) == sent.min())
        // Power was collected though the app never asked to share or read it.
        #expect(workout.statistics(for: HKQuantityType(.cyclingPower)) != nil)
        // The app reads its heart rate back, and today's activity summary exists.
        let heartRates = try await HKSampleQueryDescriptor(
            predicates: [
                .quantitySample(type: HKQuantityType(.heartRate), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: []
        ).result(for: store)
        #expect(heartRates.count == 5)
        let summaries = try await HKActivitySummaryQueryDescriptor(predicate: nil).result(for: store)
        #expect(summaries.count == 1)
    }
}
