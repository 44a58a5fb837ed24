// Bluetooth latency: how long a heart rate takes from a sensor's notification to HKLiveWorkoutBuilder's delegate,
// through the path this process takes (bluetoothd's D-Bus API where it runs; raw L2CAP with
// OPENHEALTHKIT_BLUETOOTH=raw). It needs a sensor whose sending side stamps what it sends on the same clock: the
// real-stack test (scripts/bluetooth-vm-inside.sh) runs it in one VM beside BlueZ's example heart-rate server, whose
// notifications it logs with their time, and scripts/bluetooth-latency.py pairs the two.
//
//     BluetoothLatency ble:ADDRESS SECONDS
//
// Prints the path first (`path dbus …` or `path raw …`), then one line per delegate call that brought a heart rate:
// `<wall-clock seconds since 1970, to the microsecond> <bpm> <the sample's start, the same way>`, then `end`.
import BlueZDBus
import FitnessSensors
import Foundation
import OpenHealthKit

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2, let seconds = Double(arguments[1]), seconds > 0 else {
    FileHandle.standardError.write(Data("usage: BluetoothLatency ble:ADDRESS SECONDS\n".utf8))
    exit(2)
}

/// Writes one line per delegate call that brought heart rates, stamped as the call begins.
final class Stamper: HKLiveWorkoutBuilderDelegate, @unchecked Sendable {
    let heartRate = HKQuantityType(.heartRate)
    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {
        let now = Date().timeIntervalSince1970
        guard collectedTypes.contains(heartRate),
            let statistics = workoutBuilder.statistics(for: heartRate),
            let bpm = statistics.mostRecentQuantity()?.doubleValue(for: .count().unitDivided(by: .minute())),
            let sampled = statistics.mostRecentQuantityDateInterval()?.start
        else { return }
        print(String(format: "%.6f %.0f %.6f", now, bpm, sampled.timeIntervalSince1970))
        fflush(nil)
    }
    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {}
}

do {
    let backend = try await BluetoothBackend.current()
    print("path \(backend.kind.rawValue) (\(backend.reason))")
    fflush(nil)
    let directory = NSTemporaryDirectory() + "ohk-latency-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try HKHealthStore(databasePath: directory + "/latency.sqlite", clientIdentifier: "latency")
    let types: Set<HKSampleType> = [.workoutType(), HKQuantityType(.heartRate)]
    try await store.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
    let configuration = HKWorkoutConfiguration()
    configuration.activityType = .running
    let session = try HKWorkoutSession(healthStore: store, configuration: configuration)
    let builder = session.associatedWorkoutBuilder()
    let dataSource = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration)
    dataSource.attach(try makeBluetoothSensor(identifier: arguments[0], capabilities: .heartRateStrap))
    builder.dataSource = dataSource
    let stamper = Stamper()
    builder.delegate = stamper
    let start = Date()
    session.startActivity(with: start)
    try await builder.beginCollection(at: start)
    try await Task.sleep(for: .seconds(seconds))
    session.end()
    try await builder.endCollection(at: Date())
    _ = try await builder.finishWorkout()
    print("end")
} catch {
    FileHandle.standardError.write(Data("BluetoothLatency: \(error)\n".utf8))
    exit(1)
}
