import Foundation
import OpenHealthKit

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads the first track of a GPX 1.1 file into an ``ImportedWorkout``: each `trkpt` (`@lat`, `@lon`, `ele`, `time`)
/// a position of the route, with heart rate and cadence from Garmin's TrackPointExtension (`hr`, `cad`, v1 or v2)
/// and power from a `power` element in the point's extensions. The track's `type` names the activity
/// (`HKWorkoutActivityType` names as `workout export` writes them, or running/cycling/biking/walking/hiking),
/// else `.other`; a gap between segments is a pause (from the last point before it to the first after). GPX has no
/// distance: cumulative distance is the sum of great-circle distances between successive points
/// (`CLLocation.distance(from:)`). Points without a time are skipped (GPX allows them, a workout cannot place them).
public enum GPXActivityReader {
    public static func read(path: String) throws -> ImportedWorkout {
        let delegate = Delegate()
        try XMLFile.parse(path: path, with: delegate)
        guard let start = delegate.route.first?.date, let end = delegate.route.last?.date else {
            throw ImportError("\(path): holds no track point with a time, so there is no workout to import.")
        }
        let type = activityType(delegate.type)
        var workout = ImportedWorkout(
            format: "GPX", externalIdentifier: "gpx:\(Int(start.timeIntervalSince1970))/\(delegate.route.count)",
            activityType: type, locationType: .outdoor, start: start, end: end)
        workout.route = delegate.route
        workout.heartRate = delegate.heartRate
        workout.cadence = delegate.cadence
        workout.power = delegate.power
        workout.pauses = delegate.segmentGaps.filter { $0.duration > 0 }
        var metres = 0.0
        var previous: CLLocation?
        for position in delegate.route {
            let location = position.location
            if let previous { metres += location.distance(from: previous) }
            workout.distance.append(.init(date: position.date, value: metres))
            previous = location
        }
        workout.recordCount = delegate.route.count
        if let creator = delegate.creator { workout.device = ImportedWorkout.Device(name: creator) }
        return workout
    }

    static func activityType(_ name: String?) -> HKWorkoutActivityType {
        guard let name = name?.lowercased() else { return .other }
        if let type = HKWorkoutActivityType.allCases.first(where: { $0.name.lowercased() == name }) { return type }
        switch name {
        case "biking", "ride", "road_biking": return .cycling
        case "run", "trail_running": return .running
        case "walk": return .walking
        case "hike": return .hiking
        default: return .other
        }
    }

    final class Delegate: NSObject, XMLFileDelegate {
        var type: String?
        var creator: String?
        var route: [ImportedWorkout.Position] = []
        var heartRate: [ImportedWorkout.Reading] = []
        var cadence: [ImportedWorkout.Reading] = []
        var power: [ImportedWorkout.Reading] = []
        var segmentGaps: [DateInterval] = []
        var failure: String?
        private var path: [String] = []
        var openElement: String? { path.last }
        private var text = ""
        private var tracks = 0
        private var point: [String: String] = [:]
        private var segmentEnd: Date?
        private var newSegment = false
        private let dates: ISO8601DateFormatter = {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter
        }()
        private let plainDates = ISO8601DateFormatter()

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let local = name.split(separator: ":").last.map(String.init) ?? name
            path.append(local)
            text = ""
            switch local {
            case "gpx": creator = attributes["creator"]
            case "trk": tracks += 1
            case "trkseg": newSegment = true
            case "trkpt":
                guard let lat = attributes["lat"].flatMap(Double.init),
                    let lon = attributes["lon"].flatMap(Double.init),
                    abs(lat) <= 90, abs(lon) <= 180
                else {
                    failure = "a trkpt without valid lat and lon attributes"
                    parser.abortParsing()
                    return
                }
                point = ["lat": String(lat), "lon": String(lon)]
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            let local = path.popLast() ?? name
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            defer { text = "" }
            guard tracks == 1 else { return }
            switch local {
            case "type" where path.last == "trk": type = value
            case "ele", "time", "hr", "cad", "power": if path.contains("trkpt") { point[local] = value }
            case "trkpt":
                guard let time = point["time"], let at = plainDates.date(from: time) ?? dates.date(from: time),
                    let lat = point["lat"].flatMap(Double.init), let lon = point["lon"].flatMap(Double.init)
                else { return }
                if newSegment, let end = segmentEnd, at > end { segmentGaps.append(DateInterval(start: end, end: at)) }
                newSegment = false
                segmentEnd = at
                route.append(
                    .init(date: at, latitude: lat, longitude: lon, altitude: point["ele"].flatMap(Double.init)))
                if let v = point["hr"].flatMap(Double.init) { heartRate.append(.init(date: at, value: v)) }
                if let v = point["cad"].flatMap(Double.init) { cadence.append(.init(date: at, value: v)) }
                if let v = point["power"].flatMap(Double.init) { power.append(.init(date: at, value: v)) }
            default: break
            }
        }
    }
}
