import Foundation
import OpenHealthKit

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads the first activity of a TCX file (Garmin TrainingCenterDatabase v2) into an ``ImportedWorkout``.
///
/// `Activity[@Sport]` (Running, Biking, Other) gives the activity type; `Id` the external identifier; each `Lap`
/// (`@StartTime`, `TotalTimeSeconds`, `Calories`) a lap; each `Trackpoint` its `Time`, `HeartRateBpm/Value`,
/// `Cadence`, `DistanceMeters`, and in the ActivityExtension v2 namespace `TPX/Watts`, `TPX/Speed` and a run's
/// `TPX/RunCadence` (strides a minute, the workout's cadence on foot).
/// `Position` (`LatitudeDegrees`, `LongitudeDegrees`) with `AltitudeMeters` becomes the route. Gaps between laps
/// become pauses.
public enum TCXActivityReader {
    public static func read(path: String) throws -> ImportedWorkout {
        let delegate = Delegate()
        try XMLFile.parse(path: path, with: delegate)
        guard let sport = delegate.sport else { throw ImportError("\(path): holds no TCX Activity.") }
        let times =
            delegate.heartRate.map(\.date) + delegate.power.map(\.date) + delegate.distance.map(\.date)
            + delegate.laps.flatMap { [$0.start, $0.end] } + delegate.trackpointTimes
        guard let start = times.min(), let end = times.max() else {
            throw ImportError("\(path): its activity holds no dated laps or trackpoints.")
        }
        let type: HKWorkoutActivityType = sport == "Running" ? .running : sport == "Biking" ? .cycling : .other
        var workout = ImportedWorkout(
            format: "TCX", externalIdentifier: "tcx:\(delegate.id ?? "\(start.timeIntervalSince1970)")",
            activityType: type, locationType: .unknown, start: start, end: end)
        workout.heartRate = delegate.heartRate
        workout.power = delegate.power
        workout.cadence = delegate.cadence
        workout.speed = delegate.speed
        workout.distance = delegate.distance
        workout.route = delegate.route
        workout.laps = delegate.laps
        workout.pauses = zip(delegate.laps, delegate.laps.dropFirst()).compactMap { a, b in
            b.start > a.end.addingTimeInterval(1) ? DateInterval(start: a.end, end: b.start) : nil
        }
        workout.totalEnergy = delegate.calories > 0 ? delegate.calories : nil
        workout.recordCount = delegate.trackpointTimes.count
        if let name = delegate.creator { workout.device = ImportedWorkout.Device(name: name) }
        return workout
    }

    final class Delegate: NSObject, XMLFileDelegate {
        var sport: String?
        var id: String?
        var creator: String?
        var laps: [DateInterval] = []
        var calories = 0.0
        var heartRate: [ImportedWorkout.Reading] = []
        var power: [ImportedWorkout.Reading] = []
        var cadence: [ImportedWorkout.Reading] = []
        var speed: [ImportedWorkout.Reading] = []
        var distance: [ImportedWorkout.Reading] = []
        var route: [ImportedWorkout.Position] = []
        var trackpointTimes: [Date] = []
        var failure: String?
        private var path: [String] = []
        var openElement: String? { path.last }
        private var text = ""
        private var activities = 0
        private var lapStart: Date?
        private var lapSeconds: Double?
        private var point: [String: String] = [:]
        private let dates: ISO8601DateFormatter = {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter
        }()
        private let plainDates = ISO8601DateFormatter()

        func date(_ text: String) -> Date? { plainDates.date(from: text) ?? dates.date(from: text) }

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let local = name.split(separator: ":").last.map(String.init) ?? name
            path.append(local)
            text = ""
            guard activities <= 1 else { return }
            switch local {
            case "Activity":
                activities += 1
                if activities == 1 { sport = attributes["Sport"] ?? "Other" }
            case "Lap":
                guard let value = attributes["StartTime"], let start = date(value) else {
                    failure = "a Lap without a valid StartTime attribute"
                    parser.abortParsing()
                    return
                }
                lapStart = start
                lapSeconds = nil
            case "Trackpoint":
                point = [:]
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            let local = path.popLast() ?? name
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            defer { text = "" }
            guard activities == 1 else { return }
            let parent = path.last ?? ""
            switch (parent, local) {
            case ("Activity", "Id"): id = value
            case ("Creator", "Name"): creator = value
            case ("Lap", "TotalTimeSeconds"): lapSeconds = Double(value)
            case ("Lap", "Calories"): calories += Double(value) ?? 0
            case ("Activity", "Lap"):
                if let start = lapStart { laps.append(DateInterval(start: start, duration: max(0, lapSeconds ?? 0))) }
            case ("Trackpoint", "Time"), ("Trackpoint", "DistanceMeters"), ("Trackpoint", "Cadence"),
                ("HeartRateBpm", "Value"), ("TPX", "Watts"), ("TPX", "Speed"), ("TPX", "RunCadence"),
                ("Position", "LatitudeDegrees"),
                ("Position", "LongitudeDegrees"), ("Trackpoint", "AltitudeMeters"):
                point[local] = value
            case (_, "Trackpoint"):
                guard let time = point["Time"], let at = date(time) else {
                    failure = "a Trackpoint without a valid Time"
                    parser.abortParsing()
                    return
                }
                trackpointTimes.append(at)
                if let v = point["Value"].flatMap(Double.init) { heartRate.append(.init(date: at, value: v)) }
                if let v = point["Watts"].flatMap(Double.init) { power.append(.init(date: at, value: v)) }
                if let v = (point["Cadence"] ?? point["RunCadence"]).flatMap(Double.init) {
                    cadence.append(.init(date: at, value: v))
                }
                if let v = point["Speed"].flatMap(Double.init) { speed.append(.init(date: at, value: v)) }
                if let v = point["DistanceMeters"].flatMap(Double.init) { distance.append(.init(date: at, value: v)) }
                if let latitude = point["LatitudeDegrees"].flatMap(Double.init),
                    let longitude = point["LongitudeDegrees"].flatMap(Double.init),
                    abs(latitude) <= 90, abs(longitude) <= 180
                {
                    route.append(
                        .init(
                            date: at, latitude: latitude, longitude: longitude,
                            altitude: point["AltitudeMeters"].flatMap(Double.init)))
                }
            default:
                break
            }
        }
    }
}
