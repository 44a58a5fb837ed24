import FitnessSensors
import Foundation
import Synchronization
import Testing

@testable import OpenHealthKit

/// The sensors a live workout was recorded from: kept with the workout, with the Device Information learnt when
/// each connected and the first and last battery levels they reported.
@Suite(.timeLimit(.minutes(1))) struct WorkoutSensorTests {
    /// A sensor that learns its Device Information when it connects, as a BLE sensor does.
    final class ConnectingSensor: Sensor, @unchecked Sendable {
        let identifier: String
        let name: String
        let capabilities: SensorCapabilities
        private let information = Mutex(DeviceInformation())
        private let outlet = SensorOutlet()
        var deviceInformation: DeviceInformation { information.withLock { $0 } }

        init(identifier: String, name: String, capabilities: SensorCapabilities) {
            self.identifier = identifier
            self.name = name
            self.capabilities = capabilities
        }

        func start(_ handler: @escaping @Sendable (SensorEvent) -> Void) { outlet.start(handler) }
        func stop() { outlet.stop() }

        func connect(_ info: DeviceInformation, at date: Date) {
            information.withLock { $0 = info }
            outlet.send(.connection(.connected, at: date))
        }

        func send(_ value: SensorReadingValue, at date: Date) { outlet.send(.reading(value, at: date)) }
    }

    @Test func aFinishedWorkoutKeepsItsSensorsDevicesAndBatteryLevels() async throws {
        let directory = try TemporaryDirectory()
        let (store, clock) = try await liveStore(databasePath: directory.file("health.sqlite"))
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration(.cycling))
        let builder = session.associatedWorkoutBuilder()
        let dataSource = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration(.cycling))
        let strap = ConnectingSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap)
        let meter = ConnectingSensor(identifier: "test:meter", name: "Meter", capabilities: .powerMeter)
        let silent = ScriptedSensor(identifier: "test:silent", name: "Silent", capabilities: .heartRateStrap)
        dataSource.attach(strap)
        dataSource.attach(meter)
        dataSource.attach(silent)
        builder.dataSource = dataSource
        session.startActivity(with: t0)
        try await builder.beginCollection(at: t0)

        strap.connect(
            DeviceInformation(manufacturerName: "Polar Electro Oy", modelNumber: "H10", firmwareRevision: "3.1.1"),
            at: t0)
        strap.send(.battery(BatteryReading(percent: 80)), at: t0)
        meter.connect(DeviceInformation(manufacturerName: "Favero Electronics", modelNumber: "Assioma DUO"), at: t0)
        for second in 1 ... 10 {
            clock.set(Double(second))
            strap.send(.heartRate(HeartRateReading(bpm: 120, contact: .detected)), at: t0 + Double(second))
            meter.send(.power(PowerReading(watts: 200)), at: t0 + Double(second))
        }
        strap.send(.battery(BatteryReading(percent: 78)), at: t0 + 10)
        session.end()
        try await builder.endCollection(at: t0 + 11)
        let workout = try #require(try await builder.finishWorkout())

        let sensors = try await store.workoutSensors(for: workout)
        // The silent strap never delivered: it is not one of the workout's sensors. The meter reported no battery.
        #expect(sensors.map(\.device.localIdentifier) == ["test:strap", "test:meter"])
        #expect(sensors.map(\.device.manufacturer) == ["Polar Electro Oy", "Favero Electronics"])
        #expect(sensors.map(\.device.model) == ["H10", "Assioma DUO"])
        #expect(sensors[0].device.firmwareVersion == "3.1.1")
        #expect(sensors.map(\.batteryPercentAtStart) == [80, nil])
        #expect(sensors.map(\.batteryPercentAtEnd) == [78, nil])

        // The samples collected after the sensor connected name the fuller device too.
        let heartRates = try await HKSampleQueryDescriptor(
            predicates: [
                .quantitySample(type: HKQuantityType(.heartRate), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: []
        ).result(for: store)
        #expect(heartRates.count == 10)
        #expect(heartRates.allSatisfy { $0.device?.model == "H10" && $0.device?.manufacturer == "Polar Electro Oy" })

        // Read back from another process's view of the file: the same sensors.
        let reopened = try HKHealthStore(databasePath: directory.file("health.sqlite"), clientIdentifier: "tests")
        #expect(try await reopened.workoutSensors(for: workout) == sensors)
        // A client that may not read workouts learns nothing of them.
        let stranger = try HKHealthStore(databasePath: directory.file("health.sqlite"), clientIdentifier: "stranger")
        try await stranger.requestAuthorization(toShare: [], read: [])
        #expect(try await stranger.workoutSensors(for: workout).isEmpty)
    }

    @Test func aWorkoutNotRecordedLiveHasNoSensors() async throws {
        let directory = try TemporaryDirectory()
        let (store, _) = try await liveStore(databasePath: directory.file("health.sqlite"))
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.running), device: nil)
        try await builder.beginCollection(at: t0)
        try await builder.endCollection(at: t0 + 60)
        let workout = try #require(try await builder.finishWorkout())
        #expect(try await store.workoutSensors(for: workout).isEmpty)
    }
}
