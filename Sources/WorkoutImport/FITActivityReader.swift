import ByteCoding
import FITFile
import Foundation
import OpenHealthKit

/// Reads a FIT activity file into an ``ImportedWorkout``, streaming (one message at a time).
///
/// FIT profile messages used: `file_id` (the activity's identity and maker), `device_info` (the creator's software
/// version), `sport`/`session` (sport, sub-sport, legs, total calories), `record` (heart rate, power, cadence,
/// speed or enhanced speed, distance), `event` (timer stop/stop_all then start: a pause), `lap`, `hrv` (beat-to-beat
/// intervals). Record positions (`position_lat`/`position_long` in semicircles, degrees = value × 180 / 2³¹, with
/// `enhanced_altitude` or `altitude`) become the route. A file without session or sport messages (cut before its
/// end) is taken for a ride when its records hold power or cadence, else for an `.other` workout.
///
/// **Where it ends.** The workout ends where the device's timer last stopped (a timer `stop` or `stop_all` event
/// not followed by a `start`), as the device counted it, never at a session or activity message written later;
/// readings after the stop are not imported, so the last one holds no longer than to the stop. A file whose timer
/// never stops ends at its last session or message.
///
/// **System time.** A device without a time fix writes `date_time` values below 0x10000000: seconds since it
/// powered on, not dates (FIT profile, `date_time`). Such a file is anchored by its `activity` message, whose
/// `local_timestamp` is the same instant as its `timestamp` in local time; the offset from UTC is unknown, so the
/// local time is taken for UTC and the workout may be off by the device's time zone. A system-time file without
/// that anchor is refused with one sentence.
public enum FITActivityReader {
    /// Reads `path`. A damaged file throws an ``ImportError`` naming the file and the byte offset, unless `salvage`:
    /// then the complete messages before the damage are kept and ``ImportedWorkout/damage`` says what was lost.
    public static func read(path: String, salvage: Bool = false) throws -> ImportedWorkout {
        let reader: FITFileReader
        do { reader = try FITFileReader(path: path) } catch {
            throw ImportError("\(path): cannot be read (no such file, or no permission).")
        }
        var state = State()
        state.systemTimeOffset = systemTimeOffset(path: path)
        do {
            while let item = try reader.next() {
                if case let .message(message) = item { try state.add(message, path: path) }
            }
        } catch let error as DecodeError {
            guard salvage, state.recordCount > 0 else {
                throw ImportError("\(path): \(error.reason) at byte offset \(error.offset).")
            }
            // A truncated file lost what its header declared beyond the cut; a garbled one, the rest of the file.
            let end = max(reader.fileSize, reader.declaredEnd)
            state.damage = ImportedWorkout.Damage(
                offset: error.offset, bytesLost: max(0, end - error.offset), reason: error.reason)
        }
        return try state.finish(path: path)
    }

    /// What turns a system time into a date: the activity message's `local_timestamp` less its `timestamp`, when
    /// that `timestamp` is a system time (below 0x10000000) and `local_timestamp` a date. Read in a first pass
    /// (the activity message comes last); damage ends the pass (the second pass reports it).
    static func systemTimeOffset(path: String) -> UInt32? {
        guard let reader = try? FITFileReader(path: path) else { return nil }
        var offset: UInt32?
        while let item = try? reader.next() {
            guard case let .message(message) = item, message.globalMessageNumber == FITMessageNumber.activity,
                let time = message.timestamp, time < 0x1000_0000,
                let local = message[5]?.unsigned.map({ UInt32(truncatingIfNeeded: $0) }), local >= 0x1000_0000,
                local > time
            else { continue }
            offset = local - time
        }
        return offset
    }

    struct State {
        /// Added to a system time (below 0x10000000) to make it a date; nil when nothing anchors system times.
        var systemTimeOffset: UInt32?
        /// A message carried a system time.
        var sawSystemTime = false
        var fileType: UInt64?
        var manufacturer: UInt16?
        var product: UInt64?
        var serial: UInt64?
        var timeCreated: UInt32?
        var productName: String?
        var softwareVersion: Double?
        var sport: (FITSport, FITSubSport)?
        var sessions: [(FITSport, FITSubSport, DateInterval, Double?)] = []
        var heartRate: [ImportedWorkout.Reading] = []
        var power: [ImportedWorkout.Reading] = []
        var cadence: [ImportedWorkout.Reading] = []
        var speed: [ImportedWorkout.Reading] = []
        var distance: [ImportedWorkout.Reading] = []
        var strideLength: [ImportedWorkout.Reading] = []
        var verticalOscillation: [ImportedWorkout.Reading] = []
        var groundContactTime: [ImportedWorkout.Reading] = []
        var route: [ImportedWorkout.Position] = []
        var rr: [Double] = []
        var laps: [DateInterval] = []
        var pauses: [DateInterval] = []
        var stoppedAt: Date?
        var first: Date?
        var last: Date?
        var recordCount = 0
        /// The records' dates, to count those up to the end.
        var recordDates: [Date] = []
        var damage: ImportedWorkout.Damage?

        /// The date of a FIT `date_time`: a date as it is, a system time through the anchor (nil without one).
        mutating func date(_ time: UInt32) -> Date? {
            guard time < 0x1000_0000 else { return FITProfile.date(time) }
            sawSystemTime = true
            guard let offset = systemTimeOffset, time <= UInt32.max - offset else { return nil }
            return FITProfile.date(time + offset)
        }

        mutating func add(_ message: FITMessage, path: String) throws {
            let date = message.timestamp.flatMap { self.date($0) }
            if let date {
                first = min(first ?? date, date)
                last = max(last ?? date, date)
            }
            switch message.globalMessageNumber {
            case FITMessageNumber.fileId:
                fileType = message[0]?.unsigned
                if let type = fileType, type != UInt64(FITFileType.activity.rawValue) {
                    throw ImportError(
                        "\(path): a FIT file of type \(type) (not an activity, type 4) cannot be imported as a workout."
                    )
                }
                manufacturer = message[1]?.unsigned.map { UInt16(truncatingIfNeeded: $0) }
                product = message[2]?.unsigned
                serial = message[3]?.unsigned
                timeCreated = message[4]?.unsigned.map { UInt32(truncatingIfNeeded: $0) }
                productName = message.string(8)
            case FITMessageNumber.deviceInfo:
                if message[0]?.unsigned == 0 {  // device_index 0: the creator
                    softwareVersion = message.value(5)
                    productName = productName ?? message.string(27)
                }
            case FITMessageNumber.sport:
                sport = (
                    FITSport(rawValue: UInt8(truncatingIfNeeded: message[0]?.unsigned ?? 0)),
                    FITSubSport(rawValue: UInt8(truncatingIfNeeded: message[1]?.unsigned ?? 0))
                )
            case FITMessageNumber.session:
                let start = message[2]?.unsigned.flatMap { self.date(UInt32(truncatingIfNeeded: $0)) }
                let elapsed = message.value(7)
                guard let start, let end = date ?? elapsed.map({ start + $0 }), end >= start else { return }
                sessions.append(
                    (
                        FITSport(rawValue: UInt8(truncatingIfNeeded: message[5]?.unsigned ?? 0)),
                        FITSubSport(rawValue: UInt8(truncatingIfNeeded: message[6]?.unsigned ?? 0)),
                        DateInterval(start: start, end: end), message.value(11)
                    ))
            case FITMessageNumber.lap:
                if let start = message[2]?.unsigned.flatMap({ self.date(UInt32(truncatingIfNeeded: $0)) }),
                    let end = date, end >= start
                {
                    laps.append(DateInterval(start: start, end: end))
                }
            case FITMessageNumber.event:
                guard let date, message[0]?.unsigned == UInt64(FITEvent.timer.rawValue), let type = message[1]?.unsigned
                else { return }
                if type == UInt64(FITEventType.stop.rawValue) || type == UInt64(FITEventType.stopAll.rawValue) {
                    stoppedAt = stoppedAt ?? date
                } else if type == UInt64(FITEventType.start.rawValue), let stopped = stoppedAt {
                    if date > stopped { pauses.append(DateInterval(start: stopped, end: date)) }
                    stoppedAt = nil
                }
            case FITMessageNumber.record:
                guard let date else { return }
                recordCount += 1
                recordDates.append(date)
                if let value = message.value(3) { heartRate.append(.init(date: date, value: value)) }
                let dynamics = RunningDynamics(message)
                if let value = message.value(7) ?? dynamics.power { power.append(.init(date: date, value: value)) }
                if let value = dynamics.strideLength { strideLength.append(.init(date: date, value: value)) }
                if let value = dynamics.verticalOscillation {
                    verticalOscillation.append(.init(date: date, value: value))
                }
                if let value = dynamics.groundContactTime { groundContactTime.append(.init(date: date, value: value)) }
                if let value = message.value(4) {
                    let fraction = message.value(53) ?? 0
                    cadence.append(.init(date: date, value: value + fraction))
                }
                if let value = message.value(73) ?? message.value(6) { speed.append(.init(date: date, value: value)) }
                if let value = message.value(5) { distance.append(.init(date: date, value: value)) }
                if let latitude = message.value(0), let longitude = message.value(1) {
                    let degrees = 180 / 2_147_483_648.0
                    route.append(
                        .init(
                            date: date, latitude: latitude * degrees, longitude: longitude * degrees,
                            altitude: message.value(78) ?? message.value(2)))
                }
            case FITMessageNumber.hrv:
                for interval in message.values(0) { rr.append(interval ?? .nan) }
            default:
                break
            }
        }

        func finish(path: String) throws -> ImportedWorkout {
            guard let first, let last else {
                if sawSystemTime {
                    throw ImportError(
                        "\(path): its times count from when the device powered on (it had no time fix), "
                            + "and no activity message with a local timestamp anchors them to a date, so there is no workout to import."
                    )
                }
                throw ImportError("\(path): holds no dated messages, so there is no workout to import.")
            }
            let start = min(sessions.map(\.2.start).min() ?? first, first)
            // Where the timer last stopped (not started again), else the last session or message.
            let end = stoppedAt.map { max(start, $0) } ?? max(sessions.map(\.2.end).max() ?? last, last)
            func upToEnd(_ readings: [ImportedWorkout.Reading]) -> [ImportedWorkout.Reading] {
                readings.filter { $0.date <= end }
            }
            // Without a session or sport message (a file cut before its end), power or cadence means a ride.
            let guessed: (FITSport, FITSubSport) =
                power.isEmpty && cadence.isEmpty ? (.generic, .generic) : (.cycling, .generic)
            let (sport, subSport) =
                sessions.count == 1
                ? (sessions[0].0, sessions[0].1)
                : sessions.count > 1 ? (FITSport.multisport, FITSubSport.generic) : (sport ?? guessed)
            let identity = [
                manufacturer.map(String.init), product.map(String.init), serial.map(String.init),
                timeCreated.map(String.init),
            ].map { $0 ?? "-" }.joined(separator: "/")
            var workout = ImportedWorkout(
                format: "FIT",
                externalIdentifier: timeCreated != nil
                    ? "fit:\(identity)" : "fit:start \(Int(start.timeIntervalSince1970))",
                activityType: FITSportMapping.activityType(sport: sport, subSport: subSport),
                locationType: FITSportMapping.locationType(sport: sport, subSport: subSport), start: start, end: end)
            if manufacturer != nil || productName != nil || serial != nil {
                workout.device = ImportedWorkout.Device(
                    name: productName
                        ?? manufacturer.map { "\(FITManufacturer.name($0)) \(product.map(String.init) ?? "")" },
                    manufacturer: manufacturer.map(FITManufacturer.name), model: product.map { "product \($0)" },
                    serialNumber: serial.map(String.init),
                    softwareVersion: softwareVersion.map { String(format: "%.2f", $0) })
            }
            workout.heartRate = upToEnd(heartRate)
            workout.power = upToEnd(power)
            workout.cadence = upToEnd(cadence)
            workout.speed = upToEnd(speed)
            workout.distance = upToEnd(distance)
            workout.strideLength = upToEnd(strideLength)
            workout.verticalOscillation = upToEnd(verticalOscillation)
            workout.groundContactTime = upToEnd(groundContactTime)
            workout.route = route.filter { $0.date <= end }
            workout.rrIntervals = rr
            workout.laps = laps.filter { $0.start < end }.map { DateInterval(start: $0.start, end: min($0.end, end)) }
            workout.pauses = pauses.filter { $0.start < end }.map {
                DateInterval(start: $0.start, end: min($0.end, end))
            }
            if sessions.count > 1 {
                workout.legs = sessions.filter { $0.2.start < end }.map {
                    ImportedWorkout.Leg(
                        activityType: FITSportMapping.activityType(sport: $0.0, subSport: $0.1),
                        locationType: FITSportMapping.locationType(sport: $0.0, subSport: $0.1),
                        interval: DateInterval(start: $0.2.start, end: min($0.2.end, end)))
                }
            }
            let calories = sessions.compactMap(\.3)
            workout.totalEnergy = calories.isEmpty ? nil : calories.reduce(0, +)
            workout.damage = damage
            // The records imported: those up to the end (none after the timer's last stop).
            workout.recordCount = recordDates.count(where: { $0 <= end })
            return workout
        }
    }
}
