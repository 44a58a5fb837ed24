import Foundation
import OpenHealthKit

/// Writes a workout's route as GPX 1.1 (topografix.com/GPX/1/1): `trk/trkseg/trkpt[@lat,@lon]` with `ele` and
/// `time`, heart rate and cadence in Garmin's TrackPointExtension v1 (`gpxtpx:hr`, `gpxtpx:cad`: a run's in strides
/// a minute, as Garmin's devices write it, `RunningCadence`), power in a
/// `power` element (the convention Strava and others read), both inside the point's `extensions`. Only records
/// with a position are written (a track point needs one; ``ExportFormat/gpx`` refuses a workout without a route),
/// and a new segment starts after each pause.
public enum GPXWriter {
    public static func document(_ data: WorkoutExportData) -> String {
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="\(XMLText.escape(FITActivityWriter.productName))" \
            xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd http://www.garmin.com/xmlschemas/TrackPointExtension/v1 http://www.garmin.com/xmlschemas/TrackPointExtensionv1.xsd">
              <metadata><time>\(XMLText.time(data.start))</time></metadata>
              <trk>
                <name>\(XMLText.escape(data.activityType.name))</name>
                <type>\(XMLText.escape(data.activityType.name))</type>
                <trkseg>

            """
        var pauses = data.pauses.sorted { $0.start < $1.start }[...]
        var pointsInSegment = 0
        for record in data.records {
            guard let latitude = record.latitude, let longitude = record.longitude else { continue }
            var newSegment = false
            while let pause = pauses.first, pause.end <= record.date {
                pauses.removeFirst()
                newSegment = true
            }
            if newSegment && pointsInSegment > 0 {
                xml += "    </trkseg>\n    <trkseg>\n"
                pointsInSegment = 0
            }
            xml +=
                "      <trkpt lat=\"\(XMLText.number(latitude, digits: 7))\" lon=\"\(XMLText.number(longitude, digits: 7))\">"
            if let altitude = record.altitude { xml += "<ele>\(XMLText.number(altitude, digits: 2))</ele>" }
            xml += "<time>\(XMLText.time(record.date))</time>"
            var tpx = ""
            if let hr = record.heartRate { tpx += "<gpxtpx:hr>\(Int(hr.rounded()))</gpxtpx:hr>" }
            if let cadence = record.cadence { tpx += "<gpxtpx:cad>\(Int(cadence.rounded()))</gpxtpx:cad>" }
            var extensions = ""
            if let watts = record.power { extensions += "<power>\(Int(watts.rounded()))</power>" }
            if !tpx.isEmpty { extensions += "<gpxtpx:TrackPointExtension>\(tpx)</gpxtpx:TrackPointExtension>" }
            if !extensions.isEmpty { xml += "<extensions>\(extensions)</extensions>" }
            xml += "</trkpt>\n"
            pointsInSegment += 1
        }
        xml += "    </trkseg>\n  </trk>\n</gpx>\n"
        return xml
    }
}
