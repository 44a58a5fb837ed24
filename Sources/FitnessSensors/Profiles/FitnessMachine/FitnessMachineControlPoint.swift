import ByteCoding

/// The Fitness Machine Control Point (characteristic 0x2AD9): a client writes a request (with response), the
/// machine answers with an indication of the same characteristic.
///
/// ```
/// request:  op code u8 · parameters
/// response: 0x80 · request op code u8 · result code u8 · [response parameters]
/// ```
///
/// A client must first write Request Control (0x00) and get Success; a machine answers other requests from a
/// client without control with Control Not Permitted (0x05).
///
/// Bluetooth FTMS 1.0 §4.16 (Fitness Machine Control Point).
public enum FitnessMachineControlPoint {
    /// A request a client writes.
    public enum Request: GATTCharacteristicValue {
        public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint }

        /// 0x00.
        case requestControl
        /// 0x01.
        case reset
        /// 0x02: target speed in 1/100 km/h.
        case setTargetSpeed(UInt16)
        /// 0x03: target inclination in 1/10 %.
        case setTargetInclination(Int16)
        /// 0x04: target resistance level in 1/10.
        case setTargetResistanceLevel(UInt8)
        /// 0x05: target power in watts (ERG).
        case setTargetPower(Int16)
        /// 0x07.
        case startOrResume
        /// 0x08: 0x01 stop, 0x02 pause.
        case stopOrPause(UInt8)
        /// 0x11: wind speed (1/1000 m/s), grade (1/100 %), rolling resistance (1/10000), wind resistance (1/100 kg/m).
        case setIndoorBikeSimulation(windSpeed: Int16, grade: Int16, rollingResistance: UInt8, windResistance: UInt8)
        /// Any other op code, with its parameters as they are.
        case other(opCode: UInt8, parameters: [UInt8])

        /// The request's op code.
        public var opCode: UInt8 {
            switch self {
            case .requestControl: 0x00
            case .reset: 0x01
            case .setTargetSpeed: 0x02
            case .setTargetInclination: 0x03
            case .setTargetResistanceLevel: 0x04
            case .setTargetPower: 0x05
            case .startOrResume: 0x07
            case .stopOrPause: 0x08
            case .setIndoorBikeSimulation: 0x11
            case .other(let opCode, _): opCode
            }
        }

        /// Decodes a request (what a simulated machine receives).
        ///
        /// - Throws: ``DecodeError`` when the op code is missing or a known request's parameter is cut short.
        public init(bytes: [UInt8]) throws(DecodeError) {
            var reader = ByteReader(bytes)
            let opCode = try reader.readUInt8("op code")
            switch opCode {
            case 0x00 where reader.isAtEnd: self = .requestControl
            case 0x01 where reader.isAtEnd: self = .reset
            case 0x02 where reader.remaining == 2: self = .setTargetSpeed(try reader.readUInt16("target speed"))
            case 0x03 where reader.remaining == 2:
                self = .setTargetInclination(try reader.readInt16("target inclination"))
            case 0x04 where reader.remaining == 1:
                self = .setTargetResistanceLevel(try reader.readUInt8("target resistance level"))
            case 0x05 where reader.remaining == 2: self = .setTargetPower(try reader.readInt16("target power"))
            case 0x07 where reader.isAtEnd: self = .startOrResume
            case 0x08 where reader.remaining == 1: self = .stopOrPause(try reader.readUInt8("stop or pause"))
            case 0x11 where reader.remaining == 6:
                self = .setIndoorBikeSimulation(
                    windSpeed: try reader.readInt16("wind speed"), grade: try reader.readInt16("grade"),
                    rollingResistance: try reader.readUInt8("rolling resistance"),
                    windResistance: try reader.readUInt8("wind resistance"))
            case 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x07, 0x08, 0x11:
                throw DecodeError(
                    "op code 0x\(String(opCode, radix: 16)) with \(reader.remaining) parameter bytes", at: 1)
            default:
                self = .other(opCode: opCode, parameters: Array(reader.readRemaining()))
            }
        }

        public func encode() -> [UInt8] {
            var writer = ByteWriter(capacity: 7)
            writer.write(opCode)
            switch self {
            case .requestControl, .reset, .startOrResume: break
            case .setTargetSpeed(let value): writer.write(value)
            case .setTargetInclination(let value): writer.write(value)
            case .setTargetResistanceLevel(let value): writer.write(value)
            case .setTargetPower(let value): writer.write(value)
            case .stopOrPause(let value): writer.write(value)
            case .setIndoorBikeSimulation(let wind, let grade, let crr, let cw):
                writer.write(wind)
                writer.write(grade)
                writer.write(crr)
                writer.write(cw)
            case .other(_, let parameters): writer.write(contentsOf: parameters)
            }
            return writer.bytes
        }

        /// What the request asks, as a person reads it ("set target power to 200 W").
        public var summary: String {
            switch self {
            case .requestControl: "request control"
            case .reset: "reset"
            case .setTargetSpeed(let value): "set target speed to \(Double(value) / 100) km/h"
            case .setTargetInclination(let value): "set target inclination to \(Double(value) / 10) %"
            case .setTargetResistanceLevel(let value): "set target resistance level to \(Double(value) / 10)"
            case .setTargetPower(let value): "set target power to \(value) W"
            case .startOrResume: "start or resume"
            case .stopOrPause(let value): value == 2 ? "pause" : "stop"
            case .setIndoorBikeSimulation(_, let grade, _, _): "set simulated grade to \(Double(grade) / 100) %"
            case .other(let opCode, _): "op code 0x\(String(opCode, radix: 16, uppercase: true))"
            }
        }
    }

    /// A control point result code. An open set: codes this package does not name keep their value.
    public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let success = ResultCode(rawValue: 0x01)
        public static let opCodeNotSupported = ResultCode(rawValue: 0x02)
        public static let invalidParameter = ResultCode(rawValue: 0x03)
        public static let operationFailed = ResultCode(rawValue: 0x04)
        public static let controlNotPermitted = ResultCode(rawValue: 0x05)

        public var description: String {
            switch self {
            case .success: "success"
            case .opCodeNotSupported: "op code not supported"
            case .invalidParameter: "invalid parameter"
            case .operationFailed: "operation failed"
            case .controlNotPermitted: "control not permitted"
            default: "result code 0x\(String(rawValue, radix: 16, uppercase: true))"
            }
        }
    }

    /// The machine's answer to a request (an indication).
    public struct Response: GATTCharacteristicValue {
        public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint }
        /// The response op code, first byte of every response.
        public static let responseCode: UInt8 = 0x80

        /// The op code of the request answered.
        public var requestOpCode: UInt8
        public var result: ResultCode
        /// Response parameters (only a few requests have them, e.g. spin down).
        public var parameters: [UInt8]

        public init(requestOpCode: UInt8, result: ResultCode, parameters: [UInt8] = []) {
            self.requestOpCode = requestOpCode
            self.result = result
            self.parameters = parameters
        }

        /// Decodes a response indication.
        ///
        /// - Throws: ``DecodeError`` when the first byte is not 0x80 or the value is cut short.
        public init(bytes: [UInt8]) throws(DecodeError) {
            var reader = ByteReader(bytes)
            let code = try reader.readUInt8("response code")
            guard code == Self.responseCode else {
                throw DecodeError(
                    "expected response code 0x80, found 0x\(String(code, radix: 16, uppercase: true))", at: 0)
            }
            requestOpCode = try reader.readUInt8("request op code")
            result = ResultCode(rawValue: try reader.readUInt8("result code"))
            parameters = Array(reader.readRemaining())
        }

        public func encode() -> [UInt8] {
            [Self.responseCode, requestOpCode, result.rawValue] + parameters
        }
    }
}

/// A fitness machine refused a control point request, or answered one it was never sent.
///
/// OpenHealthKit: HealthKit has no control of fitness machines.
public struct FitnessMachineControlError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// The machine answered with a result code other than success.
        case refused(FitnessMachineControlPoint.ResultCode)
        /// A response arrived for a request that was not sent (or was already answered).
        case unexpectedResponse(requestOpCode: UInt8)
        /// No response came within the time allowed.
        case noResponse
        /// The machine does not offer a control point.
        case notControllable
        /// The transport could not write the request (the link is down, or the write was refused): the sentence
        /// says why.
        case writeFailed(String)
    }

    public var request: String
    public var reason: Reason

    public init(request: String, reason: Reason) {
        self.request = request
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .refused(let result): "The machine refused to \(request): \(result)."
        case .unexpectedResponse(let opCode):
            "The machine answered a request never sent (op code 0x\(String(opCode, radix: 16, uppercase: true))); ignored."
        case .noResponse: "The machine did not answer the request to \(request)."
        case .notControllable: "The machine offers no fitness machine control point; it cannot \(request)."
        case .writeFailed(let why): "The request to \(request) could not be sent: \(why)"
        }
    }
}
