import FITFile
import Foundation

/// FIT activity files made for the import tests with FITFileBuilder (values chosen here, so every expectation is
/// arithmetic on them).
public enum ImportTestFiles {
    /// FIT time of the first record: 1,100,000,000 s after 1989-12-31 00:00 UTC.
    public static let t0: UInt32 = 1_100_000_000
    public static func date(_ offset: Int) -> Date {
        Date(timeIntervalSince1970: 631_065_600 + Double(t0) + Double(offset))
    }

    public static func field(_ number: UInt8, _ size: UInt8, _ type: FITBaseType) -> FITFieldDefinition {
        FITFieldDefinition(number: number, size: size, baseType: type)
    }

    /// A 150 s indoor ride: records every second from 0 to 59 and 90 to 149 (a pause from 60 to 90, timer stop_all
    /// then start), heart rate 100 + t mod 20, power 200 W, cadence 90 rpm, speed 10 m/s, distance 10 m per
    /// record second; two laps (0–75, 75–150); hrv: 100 intervals of 0.5 s with one invalid in the middle.
    /// With `legs`, three sessions (swimming 0–50, transition 50–60, cycling 90–150) instead of one.
    public static func ride(legs: Bool = false, serial: UInt64 = 42, power: (Int) -> UInt64 = { _ in 200 }) -> [UInt8] {
        var file = FITFileBuilder()
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.fileId,
                fields: [
                    field(0, 1, .enum), field(1, 2, .uint16), field(2, 2, .uint16), field(3, 4, .uint32z),
                    field(4, 4, .uint32),
                ]), localType: 0)
        file.write(
            [.unsigned(4), .unsigned(1), .unsigned(3122), .unsigned(serial), .unsigned(UInt64(t0))], localType: 0)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.deviceInfo,
                fields: [
                    field(253, 4, .uint32), field(0, 1, .uint8), field(5, 2, .uint16), field(27, 12, .string),
                ]), localType: 1)
        file.write([.unsigned(UInt64(t0)), .unsigned(0), .unsigned(1234), .string("Edge Test")], localType: 1)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.event,
                fields: [
                    field(253, 4, .uint32), field(0, 1, .enum), field(1, 1, .enum),
                ]), localType: 2)
        file.write([.unsigned(UInt64(t0)), .unsigned(0), .unsigned(0)], localType: 2)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.record,
                fields: [
                    field(253, 4, .uint32), field(3, 1, .uint8), field(7, 2, .uint16), field(4, 1, .uint8),
                    field(6, 2, .uint16), field(5, 4, .uint32),
                ]), localType: 3)
        file.define(
            FITMessageDefinition(globalMessageNumber: FITMessageNumber.hrv, fields: [field(0, 10, .uint16)]),
            localType: 4)
        var distance: UInt64 = 0
        for t in 0 ..< 150 {
            if t == 60 { file.write([.unsigned(UInt64(t0) + 60), .unsigned(0), .unsigned(4)], localType: 2) }
            if t == 90 { file.write([.unsigned(UInt64(t0) + 90), .unsigned(0), .unsigned(0)], localType: 2) }
            if (60 ..< 90).contains(t) { continue }
            distance += 1000  // 10 m, scale 100
            file.write(
                [
                    .unsigned(UInt64(t0) + UInt64(t)), .unsigned(UInt64(100 + t % 20)), .unsigned(power(t)),
                    .unsigned(90),
                    .unsigned(10_000), .unsigned(distance),
                ], localType: 3)
            if t % 6 == 0 && t < 120 {
                // 5 intervals of 500 ms (the 11th message's second interval invalid).
                let values: [FITValue] = (0 ..< 5).map { k in t == 60 + 30 && k == 1 ? .invalid : .unsigned(500) }
                file.write([.array(values)], localType: 4)
            }
        }
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.lap,
                fields: [
                    field(253, 4, .uint32), field(2, 4, .uint32),
                ]), localType: 5)
        file.write([.unsigned(UInt64(t0) + 75), .unsigned(UInt64(t0))], localType: 5)
        file.write([.unsigned(UInt64(t0) + 150), .unsigned(UInt64(t0) + 75)], localType: 5)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.session,
                fields: [
                    field(253, 4, .uint32), field(2, 4, .uint32), field(5, 1, .enum), field(6, 1, .enum),
                    field(7, 4, .uint32),
                ]), localType: 6)
        if legs {
            file.write(
                [.unsigned(UInt64(t0) + 50), .unsigned(UInt64(t0)), .unsigned(5), .unsigned(18), .unsigned(50_000)],
                localType: 6)
            file.write(
                [
                    .unsigned(UInt64(t0) + 60), .unsigned(UInt64(t0) + 50), .unsigned(3), .unsigned(0),
                    .unsigned(10_000),
                ], localType: 6)
            file.write(
                [
                    .unsigned(UInt64(t0) + 150), .unsigned(UInt64(t0) + 90), .unsigned(2), .unsigned(7),
                    .unsigned(60_000),
                ], localType: 6)
        } else {
            file.write(
                [.unsigned(UInt64(t0) + 150), .unsigned(UInt64(t0)), .unsigned(2), .unsigned(6), .unsigned(150_000)],
                localType: 6)
        }
        file.write([.unsigned(UInt64(t0) + 150), .unsigned(0), .unsigned(4)], localType: 2)
        return file.finish()
    }

    /// A run's speed at record second `t`, in mm/s: 3.00 m/s plus 0.05 m/s per second of a 10-second cycle.
    public static func runSpeed(_ t: Int) -> UInt64 { UInt64(3000 + 50 * (t % 10)) }
    /// A run's cadence at record second `t`, in strides a minute as FIT keeps it: 84, 85 or 86, plus a fractional
    /// cadence of 0.25 (32/128).
    public static func runCadence(_ t: Int) -> Double { Double(84 + t % 3) + 0.25 }

    /// A 120 s outdoor run: records every second from 0 to 119 with heart rate 140 + t mod 10, speed ``runSpeed(_:)``,
    /// cadence ``runCadence(_:)`` (field 4 and fractional_cadence, 53) and distance the sum of the speeds so far
    /// (each record's speed held for one second, in cm); timer start at 0 and stop_all at 120; one running session.
    public static func run() -> [UInt8] {
        var file = FITFileBuilder()
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.fileId,
                fields: [field(0, 1, .enum), field(1, 2, .uint16), field(2, 2, .uint16), field(4, 4, .uint32)]),
            localType: 0)
        file.write([.unsigned(4), .unsigned(1), .unsigned(3122), .unsigned(UInt64(t0))], localType: 0)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.event,
                fields: [field(253, 4, .uint32), field(0, 1, .enum), field(1, 1, .enum)]), localType: 1)
        file.write([.unsigned(UInt64(t0)), .unsigned(0), .unsigned(0)], localType: 1)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.record,
                fields: [
                    field(253, 4, .uint32), field(3, 1, .uint8), field(4, 1, .uint8), field(53, 1, .uint8),
                    field(6, 2, .uint16), field(5, 4, .uint32),
                ]), localType: 2)
        var distance: UInt64 = 0
        for t in 0 ..< 120 {
            distance += runSpeed(t) / 10  // mm/s held 1 s, in cm
            let cadence = runCadence(t)
            file.write(
                [
                    .unsigned(UInt64(t0) + UInt64(t)), .unsigned(UInt64(140 + t % 10)),
                    .unsigned(UInt64(cadence.rounded(.down))),
                    .unsigned(UInt64((cadence - cadence.rounded(.down)) * 128)), .unsigned(runSpeed(t)),
                    .unsigned(distance),
                ], localType: 2)
        }
        file.write([.unsigned(UInt64(t0) + 120), .unsigned(0), .unsigned(4)], localType: 1)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.session,
                fields: [
                    field(253, 4, .uint32), field(2, 4, .uint32), field(5, 1, .enum), field(6, 1, .enum),
                    field(7, 4, .uint32),
                ]), localType: 3)
        file.write(
            [.unsigned(UInt64(t0) + 120), .unsigned(UInt64(t0)), .unsigned(1), .unsigned(0), .unsigned(120_000)],
            localType: 3)
        return file.finish()
    }

    /// A run's stride length at record second `t`, in metres: 1.10 + 0.01 × (t mod 10).
    public static func stride(_ t: Int) -> Double { 1.10 + 0.01 * Double(t % 10) }
    /// Vertical oscillation in centimetres: 8.0 + 0.1 × (t mod 5).
    public static func oscillation(_ t: Int) -> Double { 8.0 + 0.1 * Double(t % 5) }
    /// Ground contact time in milliseconds: 240 + t mod 20.
    public static func contact(_ t: Int) -> Double { Double(240 + t % 20) }
    /// Running power in watts: 240 + t mod 30.
    public static func runPower(_ t: Int) -> Double { Double(240 + t % 30) }

    /// A 60 s run with running dynamics on every record (records 0 to 59, speed 3 m/s, timer start and stop_all):
    /// as a watch writes them (`power`, `step_length` in mm, `vertical_oscillation` in mm, `stance_time` in ms,
    /// each scale 10), or, with `stryd`, as Stryd's Connect IQ field writes them: developer fields "Power" (W),
    /// "Ground Time" (ms) and "Vertical Oscillation" (cm, scale 10), described by `field_description` messages.
    public static func runWithDynamics(stryd: Bool) -> [UInt8] {
        var file = FITFileBuilder()
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.fileId,
                fields: [field(0, 1, .enum), field(1, 2, .uint16), field(2, 2, .uint16), field(4, 4, .uint32)]),
            localType: 0)
        file.write([.unsigned(4), .unsigned(1), .unsigned(3122), .unsigned(UInt64(t0))], localType: 0)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.event,
                fields: [field(253, 4, .uint32), field(0, 1, .enum), field(1, 1, .enum)]), localType: 1)
        file.write([.unsigned(UInt64(t0)), .unsigned(0), .unsigned(0)], localType: 1)
        if stryd {
            file.define(
                FITMessageDefinition(
                    globalMessageNumber: FITMessageNumber.developerDataId, fields: [field(3, 1, .uint8)]),
                localType: 4)
            file.write([.unsigned(0)], localType: 4)
            file.define(
                FITMessageDefinition(
                    globalMessageNumber: FITMessageNumber.fieldDescription,
                    fields: [
                        field(0, 1, .uint8), field(1, 1, .uint8), field(2, 1, .uint8), field(3, 24, .string),
                        field(6, 1, .uint8), field(8, 16, .string),
                    ]), localType: 5)
            for (number, name, scale, units) in [
                (0, "Power", 1, "Watts"), (1, "Ground Time", 1, "Milliseconds"),
                (2, "Vertical Oscillation", 10, "Centimeters"),
            ] {
                file.write(
                    [
                        .unsigned(0), .unsigned(UInt64(number)), .unsigned(0x84), .string(name),
                        .unsigned(UInt64(scale)), .string(units),
                    ], localType: 5)
            }
            file.define(
                FITMessageDefinition(
                    globalMessageNumber: FITMessageNumber.record,
                    fields: [field(253, 4, .uint32), field(6, 2, .uint16), field(5, 4, .uint32)],
                    developerFields: [
                        FITDeveloperFieldDefinition(number: 0, size: 2, developerDataIndex: 0),
                        FITDeveloperFieldDefinition(number: 1, size: 2, developerDataIndex: 0),
                        FITDeveloperFieldDefinition(number: 2, size: 2, developerDataIndex: 0),
                    ]), localType: 2)
        } else {
            file.define(
                FITMessageDefinition(
                    globalMessageNumber: FITMessageNumber.record,
                    fields: [
                        field(253, 4, .uint32), field(6, 2, .uint16), field(5, 4, .uint32), field(7, 2, .uint16),
                        field(85, 2, .uint16), field(39, 2, .uint16), field(41, 2, .uint16),
                    ]), localType: 2)
        }
        func little(_ value: Double) -> FITValue {
            let raw = UInt16(value.rounded())
            return .bytes([UInt8(raw & 0xFF), UInt8(raw >> 8)])
        }
        for t in 0 ..< 60 {
            let time = FITValue.unsigned(UInt64(t0) + UInt64(t))
            let distance = FITValue.unsigned(UInt64(300 * (t + 1)))  // 3 m a second, in cm
            if stryd {
                file.write(
                    [time, .unsigned(3000), distance],
                    developerValues: [little(runPower(t)), little(contact(t)), little(oscillation(t) * 10)],
                    localType: 2)
            } else {
                file.write(
                    [
                        time, .unsigned(3000), distance, .unsigned(UInt64(runPower(t))),
                        .unsigned(UInt64((stride(t) * 1000 * 10).rounded())),
                        .unsigned(UInt64((oscillation(t) * 10 * 10).rounded())),
                        .unsigned(UInt64(contact(t) * 10)),
                    ], localType: 2)
            }
        }
        file.write([.unsigned(UInt64(t0) + 60), .unsigned(0), .unsigned(4)], localType: 1)
        file.define(
            FITMessageDefinition(
                globalMessageNumber: FITMessageNumber.session,
                fields: [
                    field(253, 4, .uint32), field(2, 4, .uint32), field(5, 1, .enum), field(6, 1, .enum),
                    field(7, 4, .uint32),
                ]), localType: 3)
        file.write(
            [.unsigned(UInt64(t0) + 60), .unsigned(UInt64(t0)), .unsigned(1), .unsigned(0), .unsigned(60_000)],
            localType: 3)
        return file.finish()
    }

    public static func write(_ bytes: [UInt8], name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID())-\(name)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}
