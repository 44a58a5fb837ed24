import ArgumentParser
import BlueZTransport
import Foundation
import OpenHealthKit

extension Workout {
    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record a live workout from the paired sensors (and any --sensor); Ctrl-C ends and saves it.",
            discussion: """
                Example:
                  workout record --activity cycling --sensor unix:/tmp/power.sock
                """
        )

        @OptionGroup var options: StoreOptions
        @Option(help: ArgumentHelp("The activity: running, cycling, walking, …", valueName: "NAME"))
        var activity: String = "cycling"
        @Option(name: .customLong("sensor"), help: ArgumentHelp("A sensor to read besides the paired ones (repeatable).", valueName: "ADDRESS"))
        var sensors: [String] = []
        @Option(help: ArgumentHelp("End after this many seconds instead of at Ctrl-C.", valueName: "S"))
        var duration: Double?

        func validate() throws {
            guard HKWorkoutActivityType(name: activity) != nil else { throw ValidationError("'\(activity)' is not an activity type.") }
            if let duration, !(duration > 0) { throw ValidationError("--duration must be a positive number of seconds.") }
        }

        func run() async throws {
            try await reportingErrors {
                let store = try await options.open()
                let attached = try sensors.map { try makeSensor(identifier: $0) }
                let paired = try store.pairedSensors()
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
                let start = Date()
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
                session.end()
                try await builder.endCollection(at: end)
                guard let workout = try await builder.finishWorkout() else {
                    throw CommandFailure("The workout could not be saved.")
                }
                try await printWorkout(workout.uuid, store: store)
            }
        }
    }
}
