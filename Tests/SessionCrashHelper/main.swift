// A live workout that runs until it is killed: the crash-safety test starts it, reads what it reports, SIGKILLs it
// and recovers the session in the parent.
//
//     SessionCrashHelper STORE_PATH
//
// It runs on injected clocks, so what it does is the same on a loaded machine: each step moves a manual wall clock
// and a manual monotonic clock (the journal's flush timer) on by 10 ms, has a scripted strap send a heart-rate
// reading stamped with that wall time, lets the flush timer run if it was due, waits for the journal's writer,
// and prints "sent INDEX SECONDS" (seconds since the reference date). When a line is printed, every sample that
// was due for the store is in it: a kill after that line may lose only samples younger than the flush rule allows.
import FitnessSensors
import Foundation
import OpenHealthKit
import OpenHealthKitTesting

func report(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

final class Wall: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSinceReferenceDate: 780_000_000)
    var now: Date { lock.withLock { current } }
    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: SessionCrashHelper STORE_PATH\n".utf8))
    exit(2)
}
let wall = Wall()
let monotonic = TestClock()
let store = try HKHealthStore(
    databasePath: CommandLine.arguments[1], clientIdentifier: "crash-test",
    clocks: LiveClocks(wall: { wall.now }, monotonic: monotonic))
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
let start = wall.now
session.startActivity(with: start)
try await builder.beginCollection(at: start)
session.beginNewActivity(configuration: configuration, date: start, metadata: ["leg": 1])
try await monotonic.waitForSleepers(1)  // the flush timer is armed
report("started \(start.timeIntervalSinceReferenceDate)")
var index = 0
while true {
    wall.advance(by: 0.01)
    let now = wall.now
    strap.send(.heartRate(HeartRateReading(bpm: 60 + index % 120, contact: .detected)), at: now)
    monotonic.advance(by: .milliseconds(10))
    try await monotonic.waitForSleepers(1)  // the timer has run if it was due, and sleeps again
    try await builder.waitForJournal()
    report("sent \(index) \(now.timeIntervalSinceReferenceDate)")
    index += 1
}
