import ArgumentParser
import FitnessSensors
import Foundation

extension Workout {
    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode characteristic payloads (hex) into JSON, one line per payload.",
            discussion: """
                CHARACTERISTIC is 0x2A37, 2a37 or a name: heart-rate-measurement, body-sensor-location, \
                cycling-power-measurement, cycling-power-feature, csc-measurement, csc-feature, sensor-location, \
                battery-level, rsc-measurement, rsc-feature, fitness-machine-feature, indoor-bike-data, \
                treadmill-data, rower-data, cross-trainer-data, training-status, supported-speed-range, \
                supported-inclination-range, supported-resistance-level-range, supported-power-range, \
                fitness-machine-control-point (its answers), fitness-machine-status, manufacturer-name, \
                model-number, serial-number, hardware-revision, firmware-revision, software-revision.

                Units: heart rate bpm; RR intervals, event and elapsed times s; energy kJ for cycling power, kcal \
                for fitness machines; power W; balance %; torque N·m; speed m/s; distance, stride and elevation \
                m; cadence rpm, steps or strokes a minute; inclination %; ramp angle degrees; treadmill pace km \
                a minute, rower pace s per 500 m; ranges in their characteristic's unit (km/h, %, level, W). \
                From the second payload on, a CSC or cycling power payload's cadence (rpm) and speed (m/s) are \
                derived from the previous payload, or null when it has no new event.

                Examples:
                  workout decode battery-level 5a          prints {"batteryLevel":90}
                  workout decode 2a37 16463803 10403c03    two heart rates with RR intervals
                  workout decode indoor-bike-data 4402e80bb400c8008c
                """
        )

        @Argument(help: ArgumentHelp("The characteristic the payloads belong to.", valueName: "CHARACTERISTIC"))
        var characteristic: String

        @Argument(
            help: ArgumentHelp(
                "Payloads in hex (spaces or colons between bytes allowed in one argument).", valueName: "HEX"))
        var payloads: [String]

        @Option(help: ArgumentHelp("Metres per wheel revolution, for speed.", valueName: "METERS"))
        var wheelCircumference: Double = 2.105

        func validate() throws {
            guard wheelCircumference > 0, wheelCircumference.isFinite else {
                throw ValidationError(
                    "--wheel-circumference must be a positive number of metres, not \(wheelCircumference).")
            }
        }

        func run() throws {
            try reportingErrors {
                let uuid = try Self.characteristic(named: characteristic)
                var decoded: [SensorPayload] = []
                for (index, text) in payloads.enumerated() {
                    let bytes = try Self.bytes(fromHex: text, payload: index + 1)
                    do {
                        decoded.append(try SensorPayload.decode(characteristic: uuid, bytes: bytes))
                    } catch {
                        throw CommandFailure("Payload \(index + 1) is not a valid \(Self.name(of: uuid)): \(error).")
                    }
                }
                var formatter = PayloadJSONFormatter(wheelCircumference: wheelCircumference)
                for payload in decoded { print(formatter.line(for: payload)) }
            }
        }

        /// The characteristics the library decodes (`SensorPayload`), by the name `workout decode` takes and the
        /// name its messages use.
        static let known: [(name: String, title: String, uuid: UInt16)] = {
            typealias C = GATTAssignedNumbers.Characteristic
            return [
                ("heart-rate-measurement", "Heart Rate Measurement", C.heartRateMeasurement),
                ("body-sensor-location", "Body Sensor Location", C.bodySensorLocation),
                ("cycling-power-measurement", "Cycling Power Measurement", C.cyclingPowerMeasurement),
                ("cycling-power-feature", "Cycling Power Feature", C.cyclingPowerFeature),
                ("csc-measurement", "CSC Measurement", C.cscMeasurement),
                ("csc-feature", "CSC Feature", C.cscFeature),
                ("sensor-location", "Sensor Location", C.sensorLocation),
                ("battery-level", "Battery Level", C.batteryLevel),
                ("rsc-measurement", "RSC Measurement", C.rscMeasurement),
                ("rsc-feature", "RSC Feature", C.rscFeature),
                ("fitness-machine-feature", "Fitness Machine Feature", C.fitnessMachineFeature),
                ("indoor-bike-data", "Indoor Bike Data", C.indoorBikeData),
                ("treadmill-data", "Treadmill Data", C.treadmillData),
                ("rower-data", "Rower Data", C.rowerData),
                ("cross-trainer-data", "Cross Trainer Data", C.crossTrainerData),
                ("training-status", "Training Status", C.trainingStatus),
                ("supported-speed-range", "Supported Speed Range", C.supportedSpeedRange),
                ("supported-inclination-range", "Supported Inclination Range", C.supportedInclinationRange),
                (
                    "supported-resistance-level-range", "Supported Resistance Level Range",
                    C.supportedResistanceLevelRange
                ),
                ("supported-power-range", "Supported Power Range", C.supportedPowerRange),
                ("fitness-machine-control-point", "Fitness Machine Control Point", C.fitnessMachineControlPoint),
                ("fitness-machine-status", "Fitness Machine Status", C.fitnessMachineStatus),
                ("manufacturer-name", "Manufacturer Name String", C.manufacturerNameString),
                ("model-number", "Model Number String", C.modelNumberString),
                ("serial-number", "Serial Number String", C.serialNumberString),
                ("hardware-revision", "Hardware Revision String", C.hardwareRevisionString),
                ("firmware-revision", "Firmware Revision String", C.firmwareRevisionString),
                ("software-revision", "Software Revision String", C.softwareRevisionString),
            ]
        }()

        static func name(of uuid: UInt16) -> String {
            known.first { $0.uuid == uuid }?.title ?? String(format: "0x%04X", uuid)
        }

        /// `0x2A37`, `2a37` or a name.
        static func characteristic(named text: String) throws -> UInt16 {
            let lowered = text.lowercased()
            if let entry = known.first(where: { $0.name == lowered }) { return entry.uuid }
            let digits = lowered.hasPrefix("0x") ? String(lowered.dropFirst(2)) : lowered
            if digits.count == 4, let uuid = UInt16(digits, radix: 16), known.contains(where: { $0.uuid == uuid }) {
                return uuid
            }
            throw CommandFailure(
                "'\(text)' is not a characteristic this tool decodes; `workout decode --help` lists them (0x2A37 or heart-rate-measurement, say)."
            )
        }

        /// Parses hex digits, two per byte; spaces, colons and a leading `0x` are allowed.
        static func bytes(fromHex text: String, payload: Int) throws -> [UInt8] {
            var digits = Substring(text)
            if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
            var bytes: [UInt8] = []
            var high: UInt8?
            for character in digits {
                if character == " " || character == ":" {
                    guard high == nil else {
                        throw CommandFailure(
                            "Payload \(payload) has a byte split by a separator at byte offset \(bytes.count).")
                    }
                    continue
                }
                guard let nibble = character.hexDigitValue else {
                    throw CommandFailure("Payload \(payload) is not hex: '\(character)' at byte offset \(bytes.count).")
                }
                if let first = high {
                    bytes.append(first << 4 | UInt8(nibble))
                    high = nil
                } else {
                    high = UInt8(nibble)
                }
            }
            guard high == nil else {
                throw CommandFailure(
                    "Payload \(payload) has an odd number of hex digits: byte offset \(bytes.count) is incomplete.")
            }
            return bytes
        }
    }
}

/// A failure of a command, already phrased as one sentence for people.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
