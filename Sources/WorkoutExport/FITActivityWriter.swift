import FITFile
import Foundation
import OpenHealthKit

/// Writes a workout as a FIT activity file, following the FIT SDK's activity-file recipe ("Encoding Activity
/// Files", FIT SDK cookbook) and the messages Garmin's profile defines:
///
/// 1. `file_id` (type activity, manufacturer development, product 1, a serial from the workout's UUID, created at
///    the workout's start) and `file_creator`;
/// 2. `device_info` for the creator (device index 0) and one for each device that made the workout or its samples
///    (device index 1…, source type Bluetooth Low Energy for a sensor and local for the recording computer, the manufacturer when FIT has a number for it, else
///    `development`, the Device Information's manufacturer name in `descriptor` and its model in `product_name`,
///    and the first battery level a live recording's sensor reported in `battery_level`); another `device_info` per
///    sensor at the end with its last battery level, as watches write one at the start and one at the end;
/// 3. an `event` timer start at the start, timer stop_all and start around each pause (`WorkoutPauses`: motion
///    pauses are not timer stops), timer stop_all at the end;
/// 4. a `record` per second that has a reading (heart rate, power, cadence: a ride's rpm, a run's strides a minute
///    from its step samples (`RunningCadence`) with fractional_cadence; speed, cumulative distance, a run's
///    vertical_oscillation, stance_time and step_length, and
///    position and altitude when the workout has a route), an `hrv` message per 5 beat-to-beat intervals after the
///    record of the last beat in it (a gap before a beat is an invalid element, then the beat's interval);
/// 5. a `lap` per lap (`WorkoutLaps`: the lap events and the time after the last one, with the library's lap
///    statistics, as `workout replay` prints them), or one per session when the workout has none;
/// 6. a `session` per leg of a multisport workout (transitions as sport 3), else one: sport, sub-sport, elapsed
///    and timer time, distance, calories, average and maximum heart rate, cadence (a run's avg/max_running_cadence
///    with their fractional parts and total_strides, from `RunningCadence`), power and speed, normalized
///    power, time in heart-rate zones (the workout's stored zone group) and in power zones when it has them, first
///    lap index and number of laps;
/// 7. the `activity` message (type manual, event activity stop), then the file CRC.
public enum FITActivityWriter {
    enum Local {
        static let fileId: UInt8 = 0, fileCreator: UInt8 = 1, deviceInfo: UInt8 = 2, event: UInt8 = 3, record: UInt8 = 4
        static let hrv: UInt8 = 5, lap: UInt8 = 6, session: UInt8 = 7, activity: UInt8 = 8
    }

    /// `file_creator.software_version` and the creator's `device_info.software_version` (1.00).
    public static let softwareVersion = 100
    public static let productName = "OpenHealthKit"

    /// The bytes of the activity file.
    public static func encode(_ data: WorkoutExportData) -> [UInt8] {
        var out = FITMessageWriter()
        let start = UInt64(FITProfile.timestamp(data.start)), end = UInt64(FITProfile.timestamp(data.end))
        let serial = serialNumber(data.uuid)
        out.write(
            FITMessageNumber.fileId, localType: Local.fileId,
            [
                "type": .raw(UInt64(FITFileType.activity.rawValue)), "manufacturer": .raw(255), "product": .raw(1),
                "serial_number": .raw(serial), "time_created": .raw(start), "product_name": .string(productName),
            ])
        out.write(
            FITMessageNumber.fileCreator, localType: Local.fileCreator,
            ["software_version": .raw(UInt64(softwareVersion))])
        out.write(
            FITMessageNumber.deviceInfo, localType: Local.deviceInfo,
            [
                "timestamp": .raw(start), "device_index": .raw(0), "manufacturer": .raw(255), "product": .raw(1),
                "serial_number": .raw(serial), "software_version": .number(Double(softwareVersion) / 100),
                "product_name": .string(productName),
            ])
        for (index, device) in data.devices.enumerated() where index < 254 {
            out.write(
                FITMessageNumber.deviceInfo, localType: Local.deviceInfo,
                [
                    "timestamp": .raw(start), "device_index": .raw(UInt64(index + 1)),
                    "manufacturer": .raw(UInt64(manufacturer(device.manufacturer))),
                    "serial_number": device.localIdentifier.flatMap { UInt32($0) }.flatMap {
                        $0 == 0 ? nil : .raw(UInt64($0))
                    },
                    "software_version": (device.softwareVersion ?? device.firmwareVersion).flatMap(Double.init).map {
                        .number($0)
                    },
                    // A sensor (it has an identifier: ble:, unix:, a serial) is bluetooth_low_energy (3); the computer
                    // that recorded the workout (HKDevice.local(), no identifier) is local (5). FIT profile, source_type.
                    "source_type": .raw(device.localIdentifier == nil ? 5 : 3),
                    "descriptor": (device.manufacturer ?? device.name).map { .string($0) },
                    "product_name": (device.model ?? device.name).map { .string($0) },
                    "battery_level": data.batteries[index]?.atStart.map { .raw(UInt64($0)) },
                ])
        }
        // Timer events, records and hrv messages in time order (an event before a record at the same second).
        var timer: [(Date, UInt64)] = [(data.start, 0)]
        for pause in data.pauses.sorted(by: { $0.start < $1.start }) {
            timer.append((pause.start, 4))
            if pause.end < data.end { timer.append((pause.end, 0)) }
        }
        var events = timer[...]
        var beats = hrvChunks(data)[...]
        for record in data.records {
            while let (date, type) = events.first, FITProfile.timestamp(date) <= FITProfile.timestamp(record.date) {
                timerEvent(&out, at: UInt64(FITProfile.timestamp(date)), type: type)
                events.removeFirst()
            }
            writeRecord(&out, record)
            while let chunk = beats.first, chunk.after <= record.date {
                out.write(FITMessageNumber.hrv, localType: Local.hrv, ["time": .numbers(chunk.intervals)])
                beats.removeFirst()
            }
        }
        for chunk in beats {
            out.write(FITMessageNumber.hrv, localType: Local.hrv, ["time": .numbers(chunk.intervals)])
        }
        for (date, type) in events { timerEvent(&out, at: UInt64(FITProfile.timestamp(date)), type: type) }
        timerEvent(&out, at: end, type: 4)
        for (index, battery) in data.batteries.sorted(by: { $0.key < $1.key }) where index < 254 {
            guard let level = battery.atEnd else { continue }
            out.write(
                FITMessageNumber.deviceInfo, localType: Local.deviceInfo,
                [
                    "timestamp": .raw(end), "device_index": .raw(UInt64(index + 1)),
                    "battery_level": .raw(UInt64(level)),
                ])
        }

        // Laps, then sessions.
        let sessions = data.sessionsOrWhole
        let laps = data.lapSummaries(sessions)
        for (index, (lap, _)) in laps.enumerated() {
            var fields = summaryFields(lap, data: data)
            fields.append(("event", .raw(9)))
            fields.append(("event_type", .raw(1)))
            fields.append(("message_index", .raw(UInt64(index))))
            fields.append(("lap_trigger", .raw(index == laps.count - 1 ? 7 : 0)))  // session_end, manual
            write(&out, FITMessageNumber.lap, Local.lap, fields)
        }
        for (index, session) in sessions.enumerated() {
            var fields = summaryFields(session, data: data)
            let first = laps.firstIndex { $0.session == index } ?? 0
            fields.append(("first_lap_index", .raw(UInt64(first))))
            fields.append(("num_laps", .raw(UInt64(laps.filter { $0.session == index }.count))))
            fields.append(("normalized_power", session.normalizedPower.map { .number($0) }))
            fields.append(("time_in_hr_zone", session.timeInHeartRateZones.map { .numbers($0.map(Optional.some)) }))
            fields.append(("time_in_power_zone", session.timeInPowerZones.map { .numbers($0.map(Optional.some)) }))
            fields.append(("event", .raw(8)))
            fields.append(("event_type", .raw(1)))
            fields.append(("trigger", .raw(0)))  // activity_end
            fields.append(("message_index", .raw(UInt64(index))))
            write(&out, FITMessageNumber.session, Local.session, fields)
        }
        let local = Int64(end) + Int64(TimeZone.current.secondsFromGMT(for: data.end))
        out.write(
            FITMessageNumber.activity, localType: Local.activity,
            [
                "timestamp": .raw(end),
                "total_timer_time": .number(data.timerTime(within: DateInterval(start: data.start, end: data.end))),
                "num_sessions": .raw(UInt64(sessions.count)), "type": .raw(0), "event": .raw(26), "event_type": .raw(1),
                "local_timestamp": local > 0 ? .raw(UInt64(local)) : nil,
            ])
        return out.file.finish()
    }

    static func timerEvent(_ out: inout FITMessageWriter, at time: UInt64, type: UInt64) {
        out.write(
            FITMessageNumber.event, localType: Local.event,
            ["timestamp": .raw(time), "event": .raw(0), "event_type": .raw(type)])
    }

    static func writeRecord(_ out: inout FITMessageWriter, _ record: WorkoutExportData.Record) {
        out.write(
            FITMessageNumber.record, localType: Local.record,
            [
                "timestamp": .raw(UInt64(FITProfile.timestamp(record.date))),
                "position_lat": record.latitude.map { .raw(UInt64(bitPattern: semicircles($0))) },
                "position_long": record.longitude.map { .raw(UInt64(bitPattern: semicircles($0))) },
                "enhanced_altitude": record.altitude.map { .number($0) },
                "heart_rate": record.heartRate.map { .number($0) },
                "cadence": record.cadence.map { .number($0.rounded(.down)) },
                "fractional_cadence": record.cadence.flatMap {
                    $0 == $0.rounded(.down) ? nil : .number(min(127 / 128, $0 - $0.rounded(.down)))
                },
                "distance": record.distance.map { .number($0) },
                "enhanced_speed": record.speed.map { .number($0) },
                "power": record.power.map { .number($0) },
                "vertical_oscillation": record.verticalOscillation.map { .number($0 * 10) },
                "stance_time": record.groundContactTime.map { .number($0) },
                "step_length": record.strideLength.map { .number($0 * 1000) },
            ])
    }

    /// Lap and session fields both messages share (by name; their numbers differ).
    static func summaryFields(
        _ summary: WorkoutExportData.Summary, data: WorkoutExportData
    ) -> [(String, FITMessageWriter.Value?)] {
        let (sport, subSport) = ExportSportMapping.fit(summary.activityType, summary.locationType)
        return [
            ("timestamp", .raw(UInt64(FITProfile.timestamp(summary.interval.end)))),
            ("start_time", .raw(UInt64(FITProfile.timestamp(summary.interval.start)))),
            ("sport", .raw(UInt64(sport.rawValue))), ("sub_sport", .raw(UInt64(subSport.rawValue))),
            ("total_elapsed_time", .number(summary.interval.duration)),
            ("total_timer_time", .number(summary.timerTime)),
            ("total_distance", summary.distance.map { .number($0) }),
            ("total_calories", summary.energy.map { .number($0) }),
            ("avg_heart_rate", summary.averageHeartRate.map { .number($0) }),
            ("max_heart_rate", summary.maximumHeartRate.map { .number($0) }),
        ] + cadenceFields(summary) + [
            ("avg_power", summary.averagePower.map { .number($0) }),
            ("max_power", summary.maximumPower.map { .number($0) }),
            ("enhanced_avg_speed", summary.averageSpeed.map { .number($0) }),
            ("enhanced_max_speed", summary.maximumSpeed.map { .number($0) }),
        ]
    }

    /// A ride's average and maximum rpm, rounded; a run's (its avg/max_running_cadence, strides a minute) as
    /// watches write them, whole strides with their fractional part in avg/max_fractional_cadence, and its strides
    /// in total_cycles (total_strides) with their fraction in total_fractional_cycles.
    static func cadenceFields(_ summary: WorkoutExportData.Summary) -> [(String, FITMessageWriter.Value?)] {
        guard summary.isRunningCadence else {
            return [
                ("avg_cadence", summary.averageCadence.map { .number($0) }),
                ("max_cadence", summary.maximumCadence.map { .number($0) }),
            ]
        }
        func whole(_ value: Double?) -> FITMessageWriter.Value? { value.map { .number($0.rounded(.down)) } }
        func fraction(_ value: Double?) -> FITMessageWriter.Value? {
            value.map { .number(min(127 / 128, $0 - $0.rounded(.down))) }
        }
        let strides = summary.steps.map { $0 / 2 }
        return [
            ("avg_cadence", whole(summary.averageCadence)),
            ("avg_fractional_cadence", fraction(summary.averageCadence)),
            ("max_cadence", whole(summary.maximumCadence)),
            ("max_fractional_cadence", fraction(summary.maximumCadence)),
            ("total_cycles", whole(strides)), ("total_fractional_cycles", fraction(strides)),
        ]
    }

    static func write(
        _ out: inout FITMessageWriter, _ message: UInt16, _ local: UInt8, _ fields: [(String, FITMessageWriter.Value?)]
    ) {
        out.write(message, localType: local, fields)
    }

    /// Degrees to FIT semicircles (value × 2³¹ / 180).
    static func semicircles(_ degrees: Double) -> Int64 {
        Int64((degrees * 2_147_483_648 / 180).rounded())
    }

    /// A non-zero uint32z from the UUID's first four bytes.
    static func serialNumber(_ uuid: UUID) -> UInt64 {
        let bytes = uuid.uuid
        let value = UInt32(bytes.0) << 24 | UInt32(bytes.1) << 16 | UInt32(bytes.2) << 8 | UInt32(bytes.3)
        return UInt64(value == 0 ? 1 : value)
    }

    /// FIT's number for a manufacturer's name (``FITManufacturer``), else 255 (development).
    static func manufacturer(_ name: String?) -> UInt16 {
        guard let name = name?.lowercased(), !name.isEmpty else { return 255 }
        return FITManufacturer.names.first { $0.value.lowercased() == name }?.key ?? 255
    }

    /// The beat-to-beat intervals in hrv messages of up to 5, each after the record of its last beat.
    static func hrvChunks(_ data: WorkoutExportData) -> [(after: Date, intervals: [Double?])] {
        var chunks: [(after: Date, intervals: [Double?])] = []
        var current: [Double?] = []
        var time = data.start
        for interval in data.rrIntervals {
            if interval.isFinite, interval > 0 {
                time += interval
                current.append(interval <= 65.534 ? interval : nil)
            } else {
                current.append(nil)
            }
            if current.count == 5 {
                chunks.append((Date(timeIntervalSince1970: time.timeIntervalSince1970.rounded(.down)), current))
                current = []
            }
        }
        if !current.isEmpty { chunks.append((time, current)) }
        return chunks
    }
}
