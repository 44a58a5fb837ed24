import Foundation
import OpenHealthKit

/// Writes a workout as a Garmin Training Center Database v2 document (TrainingCenterDatabasev2.xsd), with power and
/// speed in Garmin's ActivityExtension v2 (ActivityExtensionv2.xsd: `TPX/Speed`, `TPX/Watts` per track point,
/// `LX/AvgSpeed`, `LX/AvgWatts`, `LX/MaxWatts` per lap). A run's cadence (`RunningCadence`, strides a minute, as
/// Garmin's devices write it) goes in `TPX/RunCadence` per track point and `LX/AvgRunCadence`, `LX/MaxRunCadence`
/// and `LX/Steps` per lap, never in `Cadence`, which the schema keeps for a bike.
///
/// One `Activity` whose `Sport` is Running, Biking or Other (the schema's only values: walking and hiking are
/// Running, other activities Other); its `Id` is the start time. A `Lap` per lap (as in the FIT export: `WorkoutLaps`
/// with the library's lap statistics, or one per session), its elements in the schema's order (TotalTimeSeconds, DistanceMeters,
/// MaximumSpeed, Calories, AverageHeartRateBpm, MaximumHeartRateBpm, Intensity, Cadence, TriggerMethod, Track,
/// Extensions), and a `Trackpoint` per record (Time, Position, AltitudeMeters, DistanceMeters, HeartRateBpm,
/// Cadence, Extensions). Calories are required by the schema: 0 when the workout has no energy. A multisport
/// workout's legs are laps of the one activity (TCX's MultiSportSession is read by few tools).
public enum TCXWriter {
    public static func document(_ data: WorkoutExportData) -> String {
        let sessions = data.sessionsOrWhole
        let laps = data.lapSummaries(sessions)
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2" \
            xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2 http://www.garmin.com/xmlschemas/TrainingCenterDatabasev2.xsd">
              <Activities>
                <Activity Sport="\(ExportSportMapping.tcx(data.activityType))">
                  <Id>\(XMLText.time(data.start))</Id>

            """
        for (lap, _) in laps {
            // Energy per lap: the library's sum over the lap (WorkoutLaps), as the FIT lap's total_calories.
            let energy = lap.energy
            xml += "      <Lap StartTime=\"\(XMLText.time(lap.interval.start))\">\n"
            xml += "        <TotalTimeSeconds>\(XMLText.number(lap.timerTime))</TotalTimeSeconds>\n"
            xml += "        <DistanceMeters>\(XMLText.number(lap.distance ?? 0, digits: 2))</DistanceMeters>\n"
            if let speed = lap.maximumSpeed { xml += "        <MaximumSpeed>\(XMLText.number(speed))</MaximumSpeed>\n" }
            xml += "        <Calories>\(Int((energy ?? 0).rounded()))</Calories>\n"
            if let hr = lap.averageHeartRate, hr >= 1 {
                xml += "        <AverageHeartRateBpm><Value>\(Int(hr.rounded()))</Value></AverageHeartRateBpm>\n"
            }
            if let hr = lap.maximumHeartRate, hr >= 1 {
                xml += "        <MaximumHeartRateBpm><Value>\(Int(hr.rounded()))</Value></MaximumHeartRateBpm>\n"
            }
            xml += "        <Intensity>Active</Intensity>\n"
            if let cadence = lap.averageCadence, !lap.isRunningCadence {
                xml += "        <Cadence>\(min(254, Int(cadence.rounded())))</Cadence>\n"
            }
            xml += "        <TriggerMethod>Manual</TriggerMethod>\n"
            xml += "        <Track>\n"
            for record in data.records(within: lap.interval) {
                xml += trackpoint(record, runningCadence: lap.isRunningCadence)
            }
            xml += "        </Track>\n"
            var extensions = ""
            if let speed = lap.averageSpeed { extensions += "<ns3:AvgSpeed>\(XMLText.number(speed))</ns3:AvgSpeed>" }
            if lap.isRunningCadence, let average = lap.averageCadence, let maximum = lap.maximumCadence {
                extensions += "<ns3:AvgRunCadence>\(min(254, Int(average.rounded())))</ns3:AvgRunCadence>"
                extensions += "<ns3:MaxRunCadence>\(min(254, Int(maximum.rounded())))</ns3:MaxRunCadence>"
            }
            if lap.isRunningCadence, let steps = lap.steps {
                extensions += "<ns3:Steps>\(min(65535, Int(steps.rounded())))</ns3:Steps>"
            }
            if let watts = lap.averagePower { extensions += "<ns3:AvgWatts>\(Int(watts.rounded()))</ns3:AvgWatts>" }
            if let watts = lap.maximumPower { extensions += "<ns3:MaxWatts>\(Int(watts.rounded()))</ns3:MaxWatts>" }
            if !extensions.isEmpty { xml += "        <Extensions><ns3:LX>\(extensions)</ns3:LX></Extensions>\n" }
            xml += "      </Lap>\n"
        }
        xml += """
                  <Creator xsi:type="Device_t">
                    <Name>\(XMLText.escape(FITActivityWriter.productName))</Name>
                    <UnitId>\(FITActivityWriter.serialNumber(data.uuid))</UnitId>
                    <ProductID>1</ProductID>
                    <Version><VersionMajor>1</VersionMajor><VersionMinor>0</VersionMinor></Version>
                  </Creator>
                </Activity>
              </Activities>
            </TrainingCenterDatabase>

            """
        return xml
    }

    /// A track point; a run's cadence (strides a minute) in `TPX/RunCadence`, a ride's in `Cadence`.
    static func trackpoint(_ record: WorkoutExportData.Record, runningCadence: Bool = false) -> String {
        var xml = "          <Trackpoint>\n            <Time>\(XMLText.time(record.date))</Time>\n"
        if let latitude = record.latitude, let longitude = record.longitude {
            xml += "            <Position><LatitudeDegrees>\(XMLText.number(latitude, digits: 7))</LatitudeDegrees>"
            xml += "<LongitudeDegrees>\(XMLText.number(longitude, digits: 7))</LongitudeDegrees></Position>\n"
        }
        if let altitude = record.altitude {
            xml += "            <AltitudeMeters>\(XMLText.number(altitude, digits: 2))</AltitudeMeters>\n"
        }
        if let distance = record.distance {
            xml += "            <DistanceMeters>\(XMLText.number(distance, digits: 2))</DistanceMeters>\n"
        }
        if let hr = record.heartRate, hr >= 1 {
            xml += "            <HeartRateBpm><Value>\(min(255, Int(hr.rounded())))</Value></HeartRateBpm>\n"
        }
        if let cadence = record.cadence, !runningCadence {
            xml += "            <Cadence>\(min(254, Int(cadence.rounded())))</Cadence>\n"
        }
        var tpx = ""
        if let speed = record.speed { tpx += "<ns3:Speed>\(XMLText.number(speed))</ns3:Speed>" }
        if let cadence = record.cadence, runningCadence {
            tpx += "<ns3:RunCadence>\(min(254, Int(cadence.rounded())))</ns3:RunCadence>"
        }
        if let watts = record.power { tpx += "<ns3:Watts>\(Int(watts.rounded()))</ns3:Watts>" }
        if !tpx.isEmpty { xml += "            <Extensions><ns3:TPX>\(tpx)</ns3:TPX></Extensions>\n" }
        return xml + "          </Trackpoint>\n"
    }
}
