import ByteCoding

/// One CSC Measurement notification (characteristic 0x2A5B) from a speed and/or cadence sensor.
///
/// ```
/// flags u8 · [cumulative wheel revs u32 · last wheel event time u16] · [cumulative crank revs u16 · last crank event time u16]
/// ```
///
/// Flags bit 0 = wheel revolution data present, bit 1 = crank revolution data present; bits 2–7
/// are reserved and ignored. Both event times are in **1/1024 s** (unlike the wheel event time of
/// Cycling Power Measurement, which is 1/2048 s). Bytes after the last flagged field are ignored,
/// so that a value from a later revision of the specification still decodes.
///
/// Bluetooth CSCS 1.0 §3.1 (CSC Measurement).
public struct CSCMeasurement: GATTCharacteristicValue {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.cscMeasurement }

    /// The unit of both event times: 1/1024 s.
    public static let eventTicksPerSecond: Double = 1024

    enum Flag {
        static let wheelRevolutionDataPresent: UInt8 = 1 << 0
        static let crankRevolutionDataPresent: UInt8 = 1 << 1
    }

    /// Wheel revolutions and the last wheel event time (1/1024 s), when present.
    public var wheelRevolutions: WheelRevolutionData?
    /// Crank revolutions and the last crank event time (1/1024 s), when present.
    public var crankRevolutions: CrankRevolutionData?

    public init(wheelRevolutions: WheelRevolutionData? = nil, crankRevolutions: CrankRevolutionData? = nil) {
        self.wheelRevolutions = wheelRevolutions
        self.crankRevolutions = crankRevolutions
    }

    /// Decodes a CSC Measurement value.
    ///
    /// - Throws: ``DecodeError`` naming the first flagged field that is cut short.
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        let flags = try reader.readUInt8("flags")
        wheelRevolutions =
            flags & Flag.wheelRevolutionDataPresent != 0 ? try WheelRevolutionData.read(from: &reader) : nil
        crankRevolutions =
            flags & Flag.crankRevolutionDataPresent != 0 ? try CrankRevolutionData.read(from: &reader) : nil
    }

    /// The flags byte ``encode()`` writes.
    public var flags: UInt8 {
        (wheelRevolutions != nil ? Flag.wheelRevolutionDataPresent : 0)
            | (crankRevolutions != nil ? Flag.crankRevolutionDataPresent : 0)
    }

    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 11)
        writer.write(flags)
        wheelRevolutions?.write(to: &writer)
        crankRevolutions?.write(to: &writer)
        return writer.bytes
    }
}
