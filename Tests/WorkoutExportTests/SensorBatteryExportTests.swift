import FITFile
import FitnessSensors
import Foundation
import OpenHealthKit
import OpenHealthKitTesting
import TestSupport
import Testing
import WorkoutExport

/// A ride recorded live from a strap that reported its battery (80 % on connecting, 77 % near the end) and a power
/// meter that reported none: the FIT export's device_info names both sensors by their Device Information, gives the
/// strap's battery_level at the start and at the end, and Garmin's SDK and fitparse both read it.
@Suite(.blockingWaits) struct SensorBatteryExportTests {
    static let start = Date(timeIntervalSince1970: 1_731_065_600)  // FIT time 1 100 000 000

    static func recordedRide() async throws -> (HKHealthStore, HKWorkout) {
        let clock = TestClock(start: start)
        let store = HKHealthStore.testing(clock: clock)
        try await store.authorizeWorkoutTypes()
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .cycling
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration)
        let builder = session.associatedWorkoutBuilder()
        let dataSource = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration)
        let strap = ScriptedSensor(
            identifier: "ble:C0:11:22:33:44:55", name: "Polar H10 1A2B3C4D", capabilities: .heartRateStrap,
            deviceInformation: DeviceInformation(manufacturerName: "Polar Electro Oy", modelNumber: "H10"))
        let meter = ScriptedSensor(
            identifier: "ble:D0:11:22:33:44:66", name: "ASSIOMA12345", capabilities: .powerMeter,
            deviceInformation: DeviceInformation(manufacturerName: "Favero Electronics", modelNumber: "Assioma DUO"))
        dataSource.attach(strap)
        dataSource.attach(meter)
        builder.dataSource = dataSource
        session.startActivity(with: start)
        try await builder.beginCollection(at: start)
        strap.send(.battery(BatteryReading(percent: 80)), at: start)
        for second in 0 ..< 120 {
            let date = start + TimeInterval(second)
            strap.send(.heartRate(HeartRateReading(bpm: 130, contact: .detected)), at: date)
            meter.send(.power(PowerReading(watts: 210)), at: date)
        }
        strap.send(.battery(BatteryReading(percent: 77)), at: start + 119)
        session.end()
        try await builder.endCollection(at: start + 120)
        return (store, try #require(try await builder.finishWorkout()))
    }

    @Test(.timeLimit(.minutes(2)))
    func theStrapsBatteryLevelIsInDeviceInfoAtTheStartAndTheEnd() async throws {
        let (store, workout) = try await Self.recordedRide()
        let data = try await WorkoutExportData.load(workout, from: store)
        // The workout's own device (this machine, HKDevice.local()), then the two sensors once each by their Device
        // Information; only the strap has battery levels.
        #expect(data.devices.map(\.model) == ["Linux", "H10", "Assioma DUO"])
        #expect(data.batteries == [1: WorkoutExportData.Battery(atStart: 80, atEnd: 77)])

        let path = FITExportTests.temporaryPath("battery.fit")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try ExportFile.write(try ExportFormat.fit.encode(data), to: path)
        for reader in ["decode-garmin", "decode-fitparse"] {
            let messages = try ExportOracle.decode(reader, path: path)
            let devices = messages.filter { $0.number == Int(FITMessageNumber.deviceInfo) }
            // device_info fields: 253 timestamp, 0 device_index, 27 product_name, 32 battery_level (percent). Index 0
            // is the file's creator, 1 the workout's device, 2 the strap, 3 the meter.
            let strap = devices.filter { $0.number(0) == 2 }
            let meter = devices.filter { $0.number(0) == 3 }
            #expect(
                strap.first?.string(27) == "H10" && meter.first?.string(27) == "Assioma DUO",
                "\(reader): the sensors' models")
            #expect(
                strap.map { $0.number(32) } == [80, 77], "\(reader): the strap's battery at the start, then at the end")
            #expect(
                strap.map { $0.number(253) } == [1_100_000_000, 1_100_000_120], "\(reader): at the start and at the end"
            )
            #expect(meter.count == 1 && meter.first?.number(32) == nil, "\(reader): the meter reported no battery")
            // FIT source_type: 3 bluetooth_low_energy for the sensors, 5 local for the computer (index 1).
            #expect(strap.first?.number(25) == 3 && meter.first?.number(25) == 3, "\(reader): sensors are BLE")
            #expect(devices.first { $0.number(0) == 1 }?.number(25) == 5, "\(reader): the recording computer is local")
        }
    }
}
