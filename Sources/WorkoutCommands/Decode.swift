import ArgumentParser
import FitnessSensors
import Foundation

extension Workout {
    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode characteristic payloads (hex) into JSON, one line per payload.",
            discussion: """
                CHARACTERISTIC is 0x2A37, 2a37 or a name: heart-rate-measurement, cycling-power-measurement, \
                csc-measurement, battery-level. Units: bpm, seconds (RR intervals, event times), kJ, W, %, \
                N·m; from the second payload on, cadence (rpm) and speed (m/s) are derived from the \
                previous payload, or null when it has no new event.

                Examples:
                  workout decode battery-level 5a          prints {"batteryLevel":90}
                  workout decode 2a37 16463803 10403c03    two heart rates with RR intervals
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

        static let names: [String: UInt16] = [
            "heart-rate-measurement": GATTAssignedNumbers.Characteristic.heartRateMeasurement,
            "cycling-power-measurement": GATTAssignedNumbers.Characteristic.cyclingPowerMeasurement,
            "csc-measurement": GATTAssignedNumbers.Characteristic.cscMeasurement,
            "battery-level": GATTAssignedNumbers.Characteristic.batteryLevel,
        ]

        static func name(of uuid: UInt16) -> String {
            switch uuid {
            case GATTAssignedNumbers.Characteristic.heartRateMeasurement: "Heart Rate Measurement"
            case GATTAssignedNumbers.Characteristic.cyclingPowerMeasurement: "Cycling Power Measurement"
            case GATTAssignedNumbers.Characteristic.cscMeasurement: "CSC Measurement"
            default: "Battery Level"
            }
        }

        /// `0x2A37`, `2a37` or a name.
        static func characteristic(named text: String) throws -> UInt16 {
            let lowered = text.lowercased()
            if let uuid = names[lowered] { return uuid }
            let digits = lowered.hasPrefix("0x") ? String(lowered.dropFirst(2)) : lowered
            if digits.count == 4, let uuid = UInt16(digits, radix: 16), names.values.contains(uuid) { return uuid }
            throw CommandFailure(
                "'\(text)' is not a characteristic this tool decodes; use 0x2A37 (heart-rate-measurement), 0x2A63 (cycling-power-measurement), 0x2A5B (csc-measurement) or 0x2A19 (battery-level)."
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
