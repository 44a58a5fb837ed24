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
/// `enhanced_altitude` or `altitude`) become the route. Times before 0x10000000 are device-relative,
/// not dates, and such messages are skipped. A file without session or sport messages (cut before its end) is taken
/// for a ride when its records hold power or cadence, else for an `.other` workout.
public enum FITActivityReader {
    /// Reads `path`. A damaged file throws an ``ImportError`` naming the file and the byte offset, unless `salvage`:
    /// then the complete messages before the damage are kept and ``ImportedWorkout/damage`` says what was lost.
    public static func read(path: String, salvage: Bool = false) throws -> ImportedWorkout {
        let reader: FITFileReader
        do { reader = try FITFileReader(path: path) } catch { throw ImportError("\(path): cannot be read (no such file, or no permission).") }
        var state = State()
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
            state.damage = ImportedWorkout.Damage(offset: error.offset, bytesLost: max(0, end - error.offset), reason: error.reason)
        }
        return try state.finish(path: path)
    }

    struct State {
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
        var route: [ImportedWorkout.Position] = []
        var rr: [Double] = []
        var laps: [DateInterval] = []
        var pauses: [DateInterval] = []
        var stoppedAt: Date?
        var first: Date?
        var last: Date?
        var recordCount = 0
        var damage: ImportedWorkout.Damage?

        mutating func add(_ message: FITMessage, path: String) throws {
            let date = message.timestamp.flatMap(FITProfile.date)
            if let date {
                first = min(first ?? date, date)
                last = max(last ?? date, date)
            }
            switch message.globalMessageNumber {
            case FITMessageNumber.fileId:
                fileType = message[0]?.unsigned
                if let type = fileType, type != UInt64(FITFileType.activity.rawValue) {
                    throw ImportError("\(path): a FIT file of type \(type) (not an activity, type 4) cannot be imported as a workout.")
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
                sport = (FITSport(rawValue: UInt8(truncatingIfNeeded: message[0]?.unsigned ?? 0)),
                         FITSubSport(rawValue: UInt8(truncatingIfNeeded: message[1]?.unsigned ?? 0)))
            case FITMessageNumber.session:
                let start = message[2]?.unsigned.flatMap { FITProfile.date(UInt32(truncatingIfNeeded: $0)) }
                let elapsed = message.value(7)
                guard let start, let end = date ?? elapsed.map({ start + $0 }), end >= start else { return }
                sessions.append((FITSport(rawValue: UInt8(truncatingIfNeeded: message[5]?.unsigned ?? 0)),
                                 FITSubSport(rawValue: UInt8(truncatingIfNeeded: message[6]?.unsigned ?? 0)),
                                 DateInterval(start: start, end: end), message.value(11)))
            case FITMessageNumber.lap:
                if let start = message[2]?.unsigned.flatMap({ FITProfile.date(UInt32(truncatingIfNeeded: $0)) }),
                   let end = date, end >= start {
                    laps.append(DateInterval(start: start, end: end))
                }
            case FITMessageNumber.event:
                guard let date, message[0]?.unsigned == UInt64(FITEvent.timer.rawValue), let type = message[1]?.unsigned else { return }
                if type == UInt64(FITEventType.stop.rawValue) || type == UInt64(FITEventType.stopAll.rawValue) {
                    stoppedAt = stoppedAt ?? date
                } else if type == UInt64(FITEventType.start.rawValue), let stopped = stoppedAt {
                    if date > stopped { pauses.append(DateInterval(start: stopped, end: date)) }
                    stoppedAt = nil
                }
            case FITMessageNumber.record:
                guard let date else { return }
                recordCount += 1
                if let value = message.value(3) { heartRate.append(.init(date: date, value: value)) }
                if let value = message.value(7) { power.append(.init(date: date, value: value)) }
                if let value = message.value(4) {
                    let fraction = message.value(53) ?? 0
                    cadence.append(.init(date: date, value: value + fraction))
                }
                if let value = message.value(73) ?? message.value(6) { speed.append(.init(date: date, value: value)) }
                if let value = message.value(5) { distance.append(.init(date: date, value: value)) }
                if let latitude = message.value(0), let longitude = message.value(1) {
                    let degrees = 180 / 2_147_483_648.0
                    route.append(.init(date: date, latitude: latitude * degrees, longitude: longitude * degrees,
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
                throw ImportError("\(path): holds no dated messages, so there is no workout to import.")
            }
            let start = min(sessions.map(\.2.start).min() ?? first, first)
            let end = max(sessions.map(\.2.end).max() ?? last, last)
            // Without a session or sport message (a file cut before its end), power or cadence means a ride.
            let guessed: (FITSport, FITSubSport) = power.isEmpty && cadence.isEmpty ? (.generic, .generic) : (.cycling, .generic)
            let (sport, subSport) = sessions.count == 1 ? (sessions[0].0, sessions[0].1)
                : sessions.count > 1 ? (FITSport.multisport, FITSubSport.generic) : (sport ?? guessed)
            let identity = [manufacturer.map(String.init), product.map(String.init), serial.map(String.init),
                            timeCreated.map(String.init)].map { $0 ?? "-" }.joined(separator: "/")
            var workout = ImportedWorkout(
                format: "FIT", externalIdentifier: timeCreated != nil ? "fit:\(identity)" : "fit:start \(Int(start.timeIntervalSince1970))",
                activityType: FITSportMapping.activityType(sport: sport, subSport: subSport),
                locationType: FITSportMapping.locationType(sport: sport, subSport: subSport), start: start, end: end)
            if manufacturer != nil || productName != nil || serial != nil {
                workout.device = ImportedWorkout.Device(
                    name: productName ?? manufacturer.map { "\(FITManufacturer.name($0)) \(product.map(String.init) ?? "")" },
                    manufacturer: manufacturer.map(FITManufacturer.name), model: product.map { "product \($0)" },
                    serialNumber: serial.map(String.init),
                    softwareVersion: softwareVersion.map { String(format: "%.2f", $0) })
            }
            workout.heartRate = heartRate
            workout.power = power
            workout.cadence = cadence
            workout.speed = speed
            workout.distance = distance
            workout.route = route
            workout.rrIntervals = rr
            workout.laps = laps
            workout.pauses = pauses
            if sessions.count > 1 {
                workout.legs = sessions.map {
                    ImportedWorkout.Leg(activityType: FITSportMapping.activityType(sport: $0.0, subSport: $0.1),
                                        locationType: FITSportMapping.locationType(sport: $0.0, subSport: $0.1), interval: $0.2)
                }
            }
            let calories = sessions.compactMap(\.3)
            workout.totalEnergy = calories.isEmpty ? nil : calories.reduce(0, +)
            workout.damage = damage
            workout.recordCount = recordCount
            return workout
        }
    }
}
