import ByteCoding

/// A change a fitness machine announces (characteristic 0x2ADA, notify): an op code and its parameters.
///
/// Known op codes: 0x01 reset, 0x02 stopped or paused by the user (u8: 1 stop, 2 pause), 0x03 stopped by the safety
/// key, 0x04 started or resumed by the user, 0x05 target speed changed (u16, 1/100 km/h), 0x06 target incline
/// changed (s16, 1/10 %), 0x07 target resistance level changed (u8, 1/10), 0x08 target power changed (s16, W),
/// 0x12 indoor bike simulation parameters changed (s16 · s16 · u8 · u8), 0xFF control permission lost. Others are
/// kept with their parameters as they are. A known op code whose parameter is cut short is an error.
///
/// Bluetooth FTMS 1.0 §4.17 (Fitness Machine Status).
public struct FitnessMachineStatus: GATTCharacteristicValue {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.fitnessMachineStatus }

    public var opCode: UInt8
    public var parameters: [UInt8]

    /// The parameter length each known op code needs.
    static let parameterLengths: [UInt8: Int] = [
        0x01: 0, 0x02: 1, 0x03: 0, 0x04: 0, 0x05: 2, 0x06: 2, 0x07: 1, 0x08: 2, 0x12: 6, 0xFF: 0,
    ]

    public init(opCode: UInt8, parameters: [UInt8] = []) {
        self.opCode = opCode
        self.parameters = parameters
    }

    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        opCode = try reader.readUInt8("op code")
        if let length = Self.parameterLengths[opCode], reader.remaining < length {
            throw DecodeError(
                "expected \(length) parameter bytes for status 0x\(String(opCode, radix: 16, uppercase: true)), found \(reader.remaining)",
                at: 1)
        }
        parameters = Array(reader.readRemaining())
    }

    public func encode() -> [UInt8] { [opCode] + parameters }

    /// The target power the machine now holds, for a Target Power Changed status (0x08).
    public var targetPower: Int16? {
        guard opCode == 0x08, parameters.count >= 2 else { return nil }
        return Int16(bitPattern: UInt16(parameters[0]) | UInt16(parameters[1]) << 8)
    }

    /// Whether the machine took control away from the client (0xFF).
    public var isControlPermissionLost: Bool { opCode == 0xFF }

    /// What the status says, as a person reads it.
    public var summary: String {
        switch opCode {
        case 0x01: "reset"
        case 0x02: parameters.first == 2 ? "paused by the user" : "stopped by the user"
        case 0x03: "stopped by the safety key"
        case 0x04: "started by the user"
        case 0x08: "target power \(targetPower ?? 0) W"
        case 0xFF: "control permission lost"
        default: "status 0x\(String(opCode, radix: 16, uppercase: true))"
        }
    }
}
