// A live workout that runs until it is killed: the crash-safety test starts it, reads what it reports, SIGKILLs it
// and recovers the session in the parent.
//
//     SessionCrashHelper STORE_PATH
//
// Every 10 ms a scripted strap sends a heart-rate reading stamped with the wall clock; after each reading the
// helper prints "sent INDEX SECONDS" (seconds since the reference date) on standard output.
import FitnessSensors
import Foundation
import OpenHealthKit

func report(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: SessionCrashHelper STORE_PATH\n".utf8))
    exit(2)
}
let store = try HKHealthStore(databasePath: CommandLine.arguments[1], clientIdentifier: "crash-test")
let heartRate = HKQuantityType(.heartRate)
try await store.requestAuthorization(toShare: [heartRate, .workoutType()], read: [heartRate, .workoutType()])
let configuration = HKWorkoutConfiguration()
configuration.activityType = .running
let session = try HKWorkoutSession(healthStore: store, configuration: configuration)
let builder = session.associatedWorkoutBuilder()
let strap = ScriptedSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap)
let dataSource = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration)
dataSource.attach(strap)
builder.dataSource = dataSource
let start = Date()
session.startActivity(with: start)
try await builder.beginCollection(at: start)
session.beginNewActivity(configuration: configuration, date: start, metadata: ["leg": 1])
report("started \(start.timeIntervalSinceReferenceDate)")
var index = 0
while true {
    let now = Date()
    strap.send(.heartRate(HeartRateReading(bpm: 60 + index % 120, contact: .detected)), at: now)
    report("sent \(index) \(now.timeIntervalSinceReferenceDate)")
    index += 1
    try await Task.sleep(for: .milliseconds(10))
}
