import ByteCoding

/// One RSC Measurement notification (characteristic 0x2A53) from a foot pod.
///
/// ```
/// flags u8 · speed u16 (1/256 m/s) · cadence u8 (1/min) · [stride length u16 (1/100 m)] · [total distance u32 (1/10 m)]
/// ```
///
/// Flags bit 0 = instantaneous stride length present, bit 1 = total distance present, bit 2 = running (1) or
/// walking (0); bits 3–7 are reserved and ignored. Cadence is steps per minute as foot pods report it. Bytes after
/// the last flagged field are ignored, so that a value from a later revision still decodes.
///
/// ```swift
/// // 3.0 m/s (768/256), 172 steps/min, 1.05 m strides, 1234.5 m so far, running.
/// let m = try RSCMeasurement(bytes: [0x07, 0x00, 0x03, 0xAC, 0x69, 0x00, 0x39, 0x30, 0x00, 0x00])
/// m.speedMetresPerSecond  // 3.0
/// ```
///
/// Bluetooth RSCS 1.0 §3.1 (RSC Measurement).
public struct RSCMeasurement: GATTCharacteristicValue {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.rscMeasurement }

    enum Flag {
        static let strideLengthPresent: UInt8 = 1 << 0
        static let totalDistancePresent: UInt8 = 1 << 1
        static let running: UInt8 = 1 << 2
    }

    /// Instantaneous speed in 1/256 m/s.
    public var speed: UInt16
    /// Instantaneous cadence in steps per minute.
    public var cadence: UInt8
    /// Instantaneous stride length in 1/100 m, when present.
    public var strideLength: UInt16?
    /// Total distance in 1/10 m since the pod's last reset, when present.
    public var totalDistance: UInt32?
    /// Whether the person runs (flags bit 2 = 1) or walks.
    public var isRunning: Bool

    public init(
        speed: UInt16, cadence: UInt8, strideLength: UInt16? = nil, totalDistance: UInt32? = nil,
        isRunning: Bool = true
    ) {
        self.speed = speed
        self.cadence = cadence
        self.strideLength = strideLength
        self.totalDistance = totalDistance
        self.isRunning = isRunning
    }

    /// Decodes an RSC Measurement value.
    ///
    /// - Throws: ``DecodeError`` naming the first field that is cut short.
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        let flags = try reader.readUInt8("flags")
        speed = try reader.readUInt16("instantaneous speed")
        cadence = try reader.readUInt8("instantaneous cadence")
        strideLength = flags & Flag.strideLengthPresent != 0 ? try reader.readUInt16("stride length") : nil
        totalDistance = flags & Flag.totalDistancePresent != 0 ? try reader.readUInt32("total distance") : nil
        isRunning = flags & Flag.running != 0
    }

    /// The speed in metres per second.
    public var speedMetresPerSecond: Double { Double(speed) / 256 }
    /// The stride length in metres, when present.
    public var strideLengthMetres: Double? { strideLength.map { Double($0) / 100 } }
    /// The total distance in metres, when present.
    public var totalDistanceMetres: Double? { totalDistance.map { Double($0) / 10 } }

    /// The flags byte ``encode()`` writes.
    public var flags: UInt8 {
        (strideLength != nil ? Flag.strideLengthPresent : 0) | (totalDistance != nil ? Flag.totalDistancePresent : 0)
            | (isRunning ? Flag.running : 0)
    }

    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 10)
        writer.write(flags)
        writer.write(speed)
        writer.write(cadence)
        if let strideLength { writer.write(strideLength) }
        if let totalDistance { writer.write(totalDistance) }
        return writer.bytes
    }
}
