import FITFile
import Foundation
import OpenHealthKit
import TestSupport
import Testing
import WorkoutExport
import WorkoutImport

/// Routes through export, and TCX and GPX read by Python's XML parser (`xml.etree.ElementTree`, independent of
/// Foundation's) with their schemas' required structure checked element by element.
@Suite(.blockingWaits) struct XMLExportTests {
    static func semicircles(_ degrees: Double) -> Double { (degrees * 2_147_483_648 / 180).rounded() }

    /// Checks a TCX or GPX file with Python's XML parser and prints what it found as JSON. The rules are the
    /// schemas' (TrainingCenterDatabasev2.xsd, ActivityExtensionv2.xsd, gpx.xsd 1.1, TrackPointExtensionv1.xsd):
    /// required elements present, children of Lap and Trackpoint in the schema's sequence order.
    static let checker = #"""
        import json, sys, xml.etree.ElementTree as ET
        kind, path = sys.argv[1], sys.argv[2]
        root = ET.parse(path).getroot()
        out = {"root": root.tag}
        def local(e): return e.tag.split('}')[-1]
        def in_order(children, sequence):
            positions = [sequence.index(local(c)) for c in children if local(c) in sequence]
            unknown = [local(c) for c in children if local(c) not in sequence]
            return positions == sorted(positions) and not unknown
        if kind == "tcx":
            T = "{http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2}"
            X = "{http://www.garmin.com/xmlschemas/ActivityExtension/v2}"
            lap_sequence = ["TotalTimeSeconds", "DistanceMeters", "MaximumSpeed", "Calories", "AverageHeartRateBpm",
                            "MaximumHeartRateBpm", "Intensity", "Cadence", "TriggerMethod", "Track", "Notes", "Extensions"]
            point_sequence = ["Time", "Position", "AltitudeMeters", "DistanceMeters", "HeartRateBpm", "Cadence",
                              "SensorState", "Extensions"]
            activities = root.findall(T + "Activities/" + T + "Activity")
            out["activities"] = [a.get("Sport") for a in activities]
            a = activities[0]
            out["id"] = a.findtext(T + "Id")
            laps = a.findall(T + "Lap")
            out["laps"] = [{"start": l.get("StartTime"), "time": float(l.findtext(T + "TotalTimeSeconds")),
                            "distance": float(l.findtext(T + "DistanceMeters")), "calories": int(l.findtext(T + "Calories")),
                            "intensity": l.findtext(T + "Intensity"), "trigger": l.findtext(T + "TriggerMethod"),
                            "avgHR": l.findtext(T + "AverageHeartRateBpm/" + T + "Value"),
                            "inOrder": in_order(list(l), lap_sequence)} for l in laps]
            points = [p for l in laps for p in l.findall(T + "Track/" + T + "Trackpoint")]
            out["points"] = len(points)
            out["pointsInOrder"] = all(in_order(list(p), point_sequence) for p in points)
            out["hr"] = [int(p.findtext(T + "HeartRateBpm/" + T + "Value")) for p in points]
            out["watts"] = [int(p.findtext(T + "Extensions/" + X + "TPX/" + X + "Watts")) for p in points]
            out["speed"] = [float(p.findtext(T + "Extensions/" + X + "TPX/" + X + "Speed")) for p in points]
            out["lat"] = [float(p.findtext(T + "Position/" + T + "LatitudeDegrees")) for p in points if p.find(T + "Position") is not None]
            out["creator"] = a.findtext(T + "Creator/" + T + "Name")
        else:
            G = "{http://www.topografix.com/GPX/1/1}"
            P = "{http://www.garmin.com/xmlschemas/TrackPointExtension/v1}"
            out["version"] = root.get("version")
            out["creator"] = root.get("creator")
            segments = root.findall(G + "trk/" + G + "trkseg")
            out["segments"] = [len(s.findall(G + "trkpt")) for s in segments]
            points = [p for s in segments for p in s.findall(G + "trkpt")]
            out["pointsInOrder"] = all(in_order(list(p), ["ele", "time", "extensions"]) for p in points)
            out["lat"] = [float(p.get("lat")) for p in points]
            out["lon"] = [float(p.get("lon")) for p in points]
            out["ele"] = [float(p.findtext(G + "ele")) for p in points]
            out["times"] = [p.findtext(G + "time") for p in points]
            out["hr"] = [int(p.findtext(G + "extensions/" + P + "TrackPointExtension/" + P + "hr")) for p in points]
            out["cad"] = [int(p.findtext(G + "extensions/" + P + "TrackPointExtension/" + P + "cad")) for p in points]
            out["power"] = [int(p.findtext(G + "extensions/" + G + "power")) for p in points]
        json.dump(out, sys.stdout)
        """#

    static func check(_ kind: String, _ path: String) throws -> [String: Any] {
        let data = try ExportOracle.run(["-c", checker, kind, path], useScript: false)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test(.timeLimit(.minutes(2)))
    func routeRidesThroughFITGPXAndTCX() async throws {
        let store = try await FITExportTests.store()
        let source = FITExportTests.temporaryPath("garmin-route.fit")
        defer { try? FileManager.default.removeItem(atPath: source) }
        try ExportOracle.run(["encode-activity", source, "900", "--route"])
        let workout = try await WorkoutImporter.save(try WorkoutImporter.read(path: source), to: store).workout

        // The import kept the positions as the workout's route.
        let routes = try await HKSampleQueryDescriptor(
            predicates: [
                .sample(type: HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: []
        ).result(for: store)
        #expect((routes.first as? HKWorkoutRoute)?.count == 870)

        let data = try await WorkoutExportData.load(workout, from: store)
        #expect(data.hasRoute)
        let moving = FITExportTests.moving

        // FIT: both readers find the script's semicircles and altitude (enhanced_altitude: (m + 500) × 5).
        let fit = FITExportTests.temporaryPath("route.fit")
        defer { try? FileManager.default.removeItem(atPath: fit) }
        try ExportFile.write(try ExportFormat.fit.encode(data), to: fit)
        for reader in ["decode-garmin", "decode-fitparse"] {
            let records = try ExportOracle.decode(reader, path: fit).filter {
                $0.number == Int(FITMessageNumber.record)
            }
            #expect(
                records.map { $0.number(0) } == moving.map { Self.semicircles(47 + Double($0) * 1e-4) }, "\(reader)")
            #expect(records.map { $0.number(1) } == moving.map { Self.semicircles(8 + Double($0) * 2e-4) }, "\(reader)")
            #expect(
                records.map { $0.number(78) } == moving.map { ((100 + Double($0 % 40) * 0.2 + 500) * 5).rounded() },
                "\(reader)")
        }

        // GPX: two segments (the pause splits the track), the positions to 7 decimals, hr, cad and power.
        let gpx = FITExportTests.temporaryPath("route.gpx")
        defer { try? FileManager.default.removeItem(atPath: gpx) }
        try ExportFile.write(try ExportFormat.gpx.encode(data), to: gpx)
        let g = try Self.check("gpx", gpx)
        #expect(g["version"] as? String == "1.1" && g["creator"] as? String == "OpenHealthKit")
        #expect(g["segments"] as? [Int] == [450, 420], "0–449 s, then 480–899 s")
        #expect(g["pointsInOrder"] as? Bool == true)
        // Semicircles back to degrees lose less than 180 / 2³¹ ≈ 8.4e-8°: within the 7 decimals written.
        let lat = try #require(g["lat"] as? [Double])
        #expect(
            zip(lat, moving).allSatisfy { (latitude: Double, second: Int) in
                abs(latitude - (47 + Double(second) * 1e-4)) < 2e-7
            })
        #expect(g["hr"] as? [Int] == moving.map { Int(FITExportTests.heartRate($0)) })
        #expect(g["cad"] as? [Int] == moving.map { Int(FITExportTests.cadence($0)) })
        #expect(g["power"] as? [Int] == moving.map { Int(FITExportTests.power($0)) })
        #expect(
            (g["times"] as? [String])?.first == "2024-11-08T11:33:20Z",
            "FIT time 1 100 000 000 + 631 065 600 = Unix 1 731 065 600")

        // TCX: one Biking activity, one lap over the ride, 870 trackpoints with hr, watts, speed and position.
        let tcx = FITExportTests.temporaryPath("route.tcx")
        defer { try? FileManager.default.removeItem(atPath: tcx) }
        try ExportFile.write(try ExportFormat.tcx.encode(data), to: tcx)
        let t = try Self.check("tcx", tcx)
        #expect(t["activities"] as? [String] == ["Biking"])
        #expect(t["id"] as? String == "2024-11-08T11:33:20Z")
        let laps = try #require(t["laps"] as? [[String: Any]])
        #expect(laps.count == 1)
        #expect(laps.first?["time"] as? Double == 870 && laps.first?["intensity"] as? String == "Active")
        #expect(laps.first?["trigger"] as? String == "Manual" && laps.first?["inOrder"] as? Bool == true)
        #expect(t["points"] as? Int == 870 && t["pointsInOrder"] as? Bool == true)
        #expect(t["hr"] as? [Int] == moving.map { Int(FITExportTests.heartRate($0)) })
        #expect(t["watts"] as? [Int] == moving.map { Int(FITExportTests.power($0)) })
        #expect(t["speed"] as? [Double] == moving.map(FITExportTests.speed))
        #expect((t["lat"] as? [Double])?.count == 870)
    }

    @Test(.timeLimit(.minutes(1)))
    func aWorkoutWithoutARouteHasNoGPX() async throws {
        let store = try await FITExportTests.store()
        let workout = try await FITExportTests.importedGarminRide(store)
        let data = try await WorkoutExportData.load(workout, from: store)
        #expect(!data.hasRoute)
        #expect(throws: ExportError.self) { try ExportFormat.gpx.encode(data) }
        // TCX has no Position then, and is still complete.
        let tcx = FITExportTests.temporaryPath("no-route.tcx")
        defer { try? FileManager.default.removeItem(atPath: tcx) }
        try ExportFile.write(try ExportFormat.tcx.encode(data), to: tcx)
        let t = try Self.check("tcx", tcx)
        #expect(t["points"] as? Int == 870 && (t["lat"] as? [Double])?.isEmpty == true)
    }
}
