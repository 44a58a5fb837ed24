import ArgumentParser
import BlueZTransport
import FitnessSensors
import Foundation
import OpenHealthKit

extension Workout {
    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record a live workout from the paired sensors (and any --sensor); Ctrl-C ends and saves it.",
            discussion: """
                Example:
                  workout record --activity cycling --sensor unix:/tmp/power.sock
                  workout record --activity running --save-fixture run.jsonl   also keep the raw notifications
                """
        )

        @OptionGroup var options: StoreOptions
        @Option(help: ArgumentHelp("The activity: running, cycling, walking, …", valueName: "NAME"))
        var activity: String = "cycling"
        @Option(name: .customLong("sensor"), help: ArgumentHelp("A sensor to read besides the paired ones (repeatable).", valueName: "ADDRESS"))
        var sensors: [String] = []
        @Option(help: ArgumentHelp("End after this many seconds instead of at Ctrl-C.", valueName: "S"))
        var duration: Double?
        @Option(help: ArgumentHelp("Also write what the sensors send, raw, as a fixture (see fixtures/FORMAT.md).", valueName: "FILE"))
        var saveFixture: String?

        func validate() throws {
            guard HKWorkoutActivityType(name: activity) != nil else { throw ValidationError("'\(activity)' is not an activity type.") }
            if let duration, !(duration > 0) { throw ValidationError("--duration must be a positive number of seconds.") }
        }

        func run() async throws {
            try await reportingErrors {
                let store = try await options.open()
                let start = Date()
                let recorder = try saveFixture.map { try FixtureRecorder(path: $0, start: start) }
                var sensorOptions = BLESensor.Options()
                sensorOptions.tap = recorder
                if let recorder { store.sensorConnector = .bluez(tap: recorder) }
                let attached = try sensors.map { try makeSensor(identifier: $0, options: sensorOptions) }
                let paired = try store.pairedSensors()
                // Fixture ids: the sensors' identifiers, as they are unique.
                for identifier in attached.map(\.identifier) + paired.map(\.identifier) {
                    recorder?.register(identifier: identifier, as: identifier)
                }
                guard !attached.isEmpty || !paired.isEmpty else {
                    throw CommandFailure("There is no sensor to record from; pair one with `workout pair ADDRESS` or pass --sensor ADDRESS.")
                }
                let configuration = HKWorkoutConfiguration()
                configuration.activityType = HKWorkoutActivityType(name: activity)!
                let session = try HKWorkoutSession(healthStore: store, configuration: configuration)
                let builder = session.associatedWorkoutBuilder()
                let dataSource = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration)
                for sensor in attached { dataSource.attach(sensor) }
                builder.dataSource = dataSource
                // Whatever the sensors can measure for this activity may be saved.
                let sensorTypes: Set<HKQuantityType> = [
                    HKQuantityType(.heartRate), HKQuantityType(.cyclingPower), HKQuantityType(.cyclingCadence),
                    HKQuantityType(.cyclingSpeed), HKQuantityType(.distanceCycling), HKQuantityType(.distanceWalkingRunning),
                    HKQuantityType(.activeEnergyBurned),
                ]
                let types = dataSource.typesToCollect.union(sensorTypes).map { $0 as HKSampleType } + [.workoutType(), HKSeriesType.heartbeat()]
                try await store.requestAuthorization(toShare: Set(types), read: Set(types.map { $0 as HKObjectType }))
                session.startActivity(with: start)
                try await builder.beginCollection(at: start)
                let names = (attached.map(\.name) + paired.map(\.name)).joined(separator: ", ")
                print("Recording a \(configuration.activityType.name) workout from \(names); Ctrl-C ends and saves it.")
                fflush(nil)
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await interrupted() }
                    if let duration {
                        group.addTask { try? await Task.sleep(for: .milliseconds(Int64(duration * 1000))) }
                    }
                    await group.next()
                    group.cancelAll()
                }
                let end = Date()
                recorder?.record(.end, at: end)
                session.end()
                try await builder.endCollection(at: end)
                guard let workout = try await builder.finishWorkout() else {
                    throw CommandFailure("The workout could not be saved.")
                }
                if let recorder {
                    let described = dataSource.sensors.map { sensor in
                        FixtureHeader.SensorDescription(
                            id: sensor.identifier, name: sensor.name, services: [], capabilities: sensor.capabilities.names,
                            deviceInformation: .init(sensor.deviceInformation))
                    }
                    try recorder.finish(session: .init(activity: activity, location: nil), sensors: described)
                    print("Saved the raw notifications to \(recorder.path).")
                }
                try await printWorkout(workout.uuid, store: store)
            }
        }
    }
}
