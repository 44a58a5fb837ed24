import FITFile
import Foundation
import OpenHealthKit
import TestSupport
import Testing
import WorkoutExport
import WorkoutImport

/// A workout an app saved through `HKWorkoutBuilder` (not an import): a 10-minute run with a heart-rate strap named
/// by its Device Information, two laps and a route; the exported FIT names the strap in device_info, has the two
/// laps, and GPX and TCX exports import back with the route.
@Suite(.blockingWaits) struct BuiltWorkoutExportTests {
    static let start = Date(timeIntervalSince1970: 1_731_065_600)  // FIT time 1 100 000 000
    static let strap = HKDevice(
        name: "HRM-Pro Plus 1234", manufacturer: "Garmin", model: "HRM-Pro Plus", hardwareVersion: nil,
        firmwareVersion: "12.5", softwareVersion: nil, localIdentifier: "3339999", udiDeviceIdentifier: nil)

    static func heartRate(_ t: Int) -> Double { Double(130 + t % 25) }

    static func builtRun(_ store: HKHealthStore) async throws -> HKWorkout {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        configuration.locationType = .outdoor
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: nil)
        try await builder.beginCollection(at: start)
        let bpm = HKUnit.count().unitDivided(by: .minute())
        try await builder.addSamples(
            (0 ..< 600).map { t in
                HKQuantitySample(
                    type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: bpm, doubleValue: heartRate(t)),
                    start: start + TimeInterval(t), end: start + TimeInterval(t), device: strap, metadata: nil)
            })
        try await builder.addWorkoutEvents([
            HKWorkoutEvent(type: .lap, dateInterval: DateInterval(start: start, end: start + 300), metadata: nil),
            HKWorkoutEvent(type: .lap, dateInterval: DateInterval(start: start + 300, end: start + 600), metadata: nil),
        ])
        try await builder.addMetadata([HKMetadataKeyIndoorWorkout: false])
        try await builder.endCollection(at: start + 600)
        let workout = try #require(try await builder.finishWorkout())
        let route = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        try await route.insertRouteData(
            (0 ..< 600).map { t in
                CLLocation(
                    coordinate: CLLocationCoordinate2D(latitude: 51.5 + Double(t) * 1e-5, longitude: -0.12),
                    altitude: 20, horizontalAccuracy: 4, verticalAccuracy: 3, timestamp: start + TimeInterval(t))
            })
        _ = try await route.finishRoute(with: workout, metadata: nil)
        return workout
    }

    @Test(.timeLimit(.minutes(2)))
    func aBuiltRunExportsItsStrapLapsAndRoute() async throws {
        let store = try await FITExportTests.store()
        let workout = try await Self.builtRun(store)
        let data = try await WorkoutExportData.load(workout, from: store)
        #expect(data.records.count == 600 && data.laps.count == 2 && data.hasRoute)

        let fit = FITExportTests.temporaryPath("run.fit")
        defer { try? FileManager.default.removeItem(atPath: fit) }
        try ExportFile.write(try ExportFormat.fit.encode(data), to: fit)
        for reader in ["decode-garmin", "decode-fitparse"] {
            let messages = try ExportOracle.decode(reader, path: fit)
            let devices = messages.filter { $0.number == Int(FITMessageNumber.deviceInfo) }
            let sensor = try #require(devices.first { $0.number(0) == 1 }, "\(reader): the strap's device_info")
            #expect(sensor.number(2) == 1, "\(reader): Garmin is FIT manufacturer 1")
            #expect(sensor.string(27) == "HRM-Pro Plus" && sensor.string(19) == "Garmin", "\(reader): model and maker")
            #expect(sensor.number(3) == 3_339_999 && sensor.number(5) == 1250, "\(reader): serial, firmware 12.5 × 100")
            // FIT profile source_type: 0 ant, 1 antplus, 2 bluetooth, 3 bluetooth_low_energy, 4 wifi, 5 local.
            #expect(sensor.number(25) == 3, "\(reader): source type bluetooth_low_energy")
            let laps = messages.filter { $0.number == Int(FITMessageNumber.lap) }
            #expect(laps.map { $0.number(2) } == [1_100_000_000, 1_100_000_300], "\(reader): lap start times")
            #expect(laps.map { $0.number(7) } == [300_000, 300_000], "\(reader): 300 s each")
            // Lap 1 holds t = 0…299 (the record at 300 s opens lap 2): heart rates 130 + t mod 25, maximum 154.
            #expect(laps.map { $0.number(16) } == [154, 154], "\(reader): max heart rate per lap")
            // 300 readings per lap, t mod 25 running through 0…24 twelve times: a mean of 130 + 12.
            #expect(laps.map { $0.number(15) } == [142, 142], "\(reader): average heart rate per lap")
            let session = try #require(messages.first { $0.number == Int(FITMessageNumber.session) })
            #expect(session.number(5) == 1 && session.number(6) == 2, "\(reader): running, street (outdoor)")
            #expect(session.number(26) == 2, "\(reader): two laps")
        }

        // GPX and TCX import back with the route and the heart rates.
        for format in [ExportFormat.gpx, .tcx] {
            let path = FITExportTests.temporaryPath("run.\(format.rawValue)")
            defer { try? FileManager.default.removeItem(atPath: path) }
            try ExportFile.write(try format.encode(data), to: path)
            let imported = try WorkoutImporter.read(path: path)
            #expect(imported.route.count == 600, "\(format)")
            #expect(imported.route.last.map { abs($0.latitude - (51.5 + 599e-5)) < 1e-7 } == true, "\(format)")
            #expect(imported.route.first?.altitude == 20, "\(format)")
            #expect(imported.heartRate.map(\.value) == (0 ..< 600).map(Self.heartRate), "\(format)")
            #expect(imported.activityType == .running, "\(format)")
            if format == .gpx {
                // GPX has no distance: the import sums great-circle steps. Due north 599 × 1e-5°, on a
                // 6 371 008.8 m sphere: 6 371 008.8 × 599e-5 × π / 180 ≈ 666.06 m (latitudes written to 1e-7°).
                let expected = 6_371_008.8 * 599e-5 * .pi / 180
                #expect(
                    imported.distance.last.map { abs($0.value - expected) < 0.03 } == true,
                    "\(String(describing: imported.distance.last))")
            }
            let other = try await FITExportTests.store()
            let saved = try await WorkoutImporter.save(imported, to: other).workout
            let routes = try await HKSampleQueryDescriptor(
                predicates: [
                    .sample(type: HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObjects(from: saved))
                ],
                sortDescriptors: []
            ).result(for: other)
            #expect((routes.first as? HKWorkoutRoute)?.count == 600, "\(format)")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aDamagedGPXIsOneSentence() throws {
        let path = FITExportTests.temporaryPath("bad.gpx")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(
            #"<gpx version="1.1"><trk><trkseg><trkpt lat="95" lon="8"><time>2024-11-08T11:33:20Z</time></trkpt>"#.utf8
        )
        .write(to: URL(fileURLWithPath: path))
        #expect(throws: ImportError.self) { try WorkoutImporter.read(path: path) }
        do { _ = try WorkoutImporter.read(path: path) } catch let error as ImportError {
            #expect(error.description.hasPrefix("\(path): line 1, column"))
            #expect(error.description.hasSuffix("a trkpt without valid lat and lon attributes."))
        }
    }
}
