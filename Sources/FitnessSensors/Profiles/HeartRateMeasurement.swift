import ByteCoding

/// One Heart Rate Measurement notification (characteristic 0x2A37).
///
/// The layout is little-endian:
///
/// ```
/// flags u8 · heart rate (u8 | u16) · [energy expended u16] · [RR interval u16]*
/// ```
///
/// | flags bit | meaning |
/// |---|---|
/// | 0 | heart rate value format: 0 = uint8, 1 = uint16 (beats per minute) |
/// | 1–2 | sensor contact status, see ``SensorContact`` |
/// | 3 | energy expended present (uint16, kJ, cumulative, saturates at 0xFFFF) |
/// | 4 | one or more RR intervals present (uint16 each, 1/1024 s, to the end of the value) |
/// | 5–7 | reserved: ignored when decoding, written as 0 |
///
/// Decoding is deliberately tolerant where real straps are sloppy and strict where bytes would be
/// misread: reserved flag bits are ignored, an RR flag with no RR bytes yields an empty list,
/// bytes after the energy field are ignored when the RR flag is clear, but an odd trailing byte
/// in the RR list throws a ``DecodeError`` naming its offset.
///
/// ```swift
/// // A Polar H7 notification: contact detected, 77 bpm, one RR interval of 790/1024 s.
/// let m = try HeartRateMeasurement(bytes: [0x16, 0x4D, 0x16, 0x03])
/// m.heartRate            // 77
/// m.rrIntervalSeconds    // [0.771484375]
/// ```
///
/// Bluetooth HRS 1.0 §3.1 (Heart Rate Measurement).
public struct HeartRateMeasurement: GATTCharacteristicValue {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.heartRateMeasurement }

    /// How the heart rate value is carried on the wire (flags bit 0).
    public enum ValueFormat: UInt8, Hashable, Sendable, CaseIterable {
        /// One byte, 0–255 bpm.
        case uint8 = 0
        /// Two bytes, little-endian.
        case uint16 = 1
    }

    /// Whether the strap can tell if it touches the skin, and whether it does (flags bits 1–2).
    ///
    /// Bits 1–2 read as a two-bit number: 0 and 1 mean the feature is not supported, 2 means
    /// supported but no contact, 3 means supported and in contact. ``notSupported`` is written as 0.
    ///
    /// Bluetooth HRS 1.0 §3.1.1.
    public enum SensorContact: Hashable, Sendable, CaseIterable {
        case notSupported
        case notDetected
        case detected

        /// Decodes bits 1–2 of a flags byte.
        public init(flags: UInt8) {
            switch (flags >> 1) & 0b11 {
            case 0b11: self = .detected
            case 0b10: self = .notDetected
            default: self = .notSupported
            }
        }

        /// The bits this status occupies in a flags byte.
        public var flagBits: UInt8 {
            switch self {
            case .notSupported: 0b000
            case .notDetected: 0b100
            case .detected: 0b110
            }
        }
    }

    /// Flag bits defined by the specification.
    enum Flag {
        static let valueFormatUInt16: UInt8 = 1 << 0
        static let energyExpendedPresent: UInt8 = 1 << 3
        static let rrIntervalsPresent: UInt8 = 1 << 4
    }

    /// The RR interval unit: 1/1024 s.
    public static let rrIntervalTicksPerSecond: Double = 1024

    /// The heart rate in beats per minute.
    public var heartRate: UInt16
    /// The wire format of ``heartRate``. ``encode()`` uses two bytes when this is `.uint16` or when
    /// the value does not fit in one byte.
    public var valueFormat: ValueFormat
    /// The sensor contact status.
    public var sensorContact: SensorContact
    /// Energy expended since the last reset, in kilojoules, when this notification carries it.
    ///
    /// Straps usually send it only every few notifications; `nil` means "no new value", not zero.
    public var energyExpended: UInt16?
    /// RR intervals in units of 1/1024 s, oldest first, as sent.
    public var rrIntervals: [UInt16]

    /// Creates a measurement.
    ///
    /// - Parameters:
    ///   - heartRate: Beats per minute.
    ///   - valueFormat: The wire format; by default one byte when the value fits. A value above
    ///     255 always uses two.
    ///   - sensorContact: The contact status.
    ///   - energyExpended: Kilojoules, or `nil` when absent.
    ///   - rrIntervals: RR intervals in 1/1024 s.
    public init(
        heartRate: UInt16,
        valueFormat: ValueFormat? = nil,
        sensorContact: SensorContact = .notSupported,
        energyExpended: UInt16? = nil,
        rrIntervals: [UInt16] = []
    ) {
        self.heartRate = heartRate
        // A value above 255 can only travel as uint16.
        self.valueFormat = heartRate > UInt16(UInt8.max) ? .uint16 : (valueFormat ?? .uint8)
        self.sensorContact = sensorContact
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
    }

    /// Decodes a Heart Rate Measurement value.
    ///
    /// - Throws: ``DecodeError`` when the flags byte or a flagged field is missing, or when the
    ///   RR interval list ends with an odd byte (the error names that byte's offset).
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        let flags = try reader.readUInt8("flags")
        if flags & Flag.valueFormatUInt16 != 0 {
            valueFormat = .uint16
            heartRate = try reader.readUInt16("heart rate (uint16)")
        } else {
            valueFormat = .uint8
            heartRate = UInt16(try reader.readUInt8("heart rate (uint8)"))
        }
        sensorContact = SensorContact(flags: flags)
        energyExpended = flags & Flag.energyExpendedPresent != 0 ? try reader.readUInt16("energy expended") : nil
        var intervals: [UInt16] = []
        if flags & Flag.rrIntervalsPresent != 0 {
            guard reader.remaining % 2 == 0 else {
                throw DecodeError("odd trailing byte in RR interval list", at: bytes.count - 1)
            }
            intervals.reserveCapacity(reader.remaining / 2)
            while !reader.isAtEnd {
                intervals.append(try reader.readUInt16("RR interval"))
            }
        }
        rrIntervals = intervals
    }

    /// The RR intervals in seconds.
    public var rrIntervalSeconds: [Double] {
        rrIntervals.map { Double($0) / Self.rrIntervalTicksPerSecond }
    }

    /// The flags byte ``encode()`` writes.
    public var flags: UInt8 {
        var flags = sensorContact.flagBits
        if encodesAsUInt16 { flags |= Flag.valueFormatUInt16 }
        if energyExpended != nil { flags |= Flag.energyExpendedPresent }
        if !rrIntervals.isEmpty { flags |= Flag.rrIntervalsPresent }
        return flags
    }

    private var encodesAsUInt16: Bool { valueFormat == .uint16 || heartRate > UInt16(UInt8.max) }

    /// Encodes the measurement in canonical form: reserved bits 0, "contact not supported" as 0b00,
    /// the RR flag set only when there is at least one RR interval.
    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 5 + 2 * rrIntervals.count)
        writer.write(flags)
        if encodesAsUInt16 { writer.write(heartRate) } else { writer.write(UInt8(heartRate)) }
        if let energyExpended { writer.write(energyExpended) }
        for interval in rrIntervals { writer.write(interval) }
        return writer.bytes
    }
}
