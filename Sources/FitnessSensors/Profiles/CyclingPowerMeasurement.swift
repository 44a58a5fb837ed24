import ByteCoding

/// One Cycling Power Measurement notification (characteristic 0x2A63) from a power meter.
///
/// ```
/// flags u16 · instantaneous power s16 (W) · optional fields, in flag order
/// ```
///
/// | flags bit | field | type / unit |
/// |---|---|---|
/// | 0 | pedal power balance | u8, 1/2 % |
/// | 1 | (balance reference: 0 unknown, 1 left) | qualifies bit 0 |
/// | 2 | accumulated torque | u16, 1/32 N·m |
/// | 3 | (torque source: 0 wheel, 1 crank) | qualifies bit 2 |
/// | 4 | wheel revolution data | u32 revolutions · u16 event time, **1/2048 s** |
/// | 5 | crank revolution data | u16 revolutions · u16 event time, 1/1024 s |
/// | 6 | extreme force magnitudes | s16 max · s16 min, N |
/// | 7 | extreme torque magnitudes | s16 max · s16 min, 1/32 N·m |
/// | 8 | extreme angles | u24: max = low 12 bits, min = high 12 bits, degrees |
/// | 9 | top dead spot angle | u16, degrees |
/// | 10 | bottom dead spot angle | u16, degrees |
/// | 11 | accumulated energy | u16, kJ |
/// | 12 | (offset compensation indicator) | flag only |
/// | 13–15 | reserved, ignored | |
///
/// Bits 1 and 3 only qualify a field that is present; ``encode()`` writes them only with their
/// field. Bytes after the last flagged field are ignored, so that a value from a later revision
/// of the specification still decodes.
///
/// ```swift
/// // Assioma Uno pedals: 45 W, crank revolution 2 at 4792/1024 s.
/// let m = try CyclingPowerMeasurement(bytes: [0x20, 0x00, 0x2D, 0x00, 0x02, 0x00, 0xB8, 0x12])
/// m.instantaneousPower                     // 45
/// m.crankRevolutions?.cumulativeRevolutions // 2
/// ```
///
/// Bluetooth CPS 1.1 §3.2 (Cycling Power Measurement).
public struct CyclingPowerMeasurement: GATTCharacteristicValue {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.cyclingPowerMeasurement }

    /// The unit of the wheel event time in this characteristic: 1/2048 s.
    public static let wheelEventTicksPerSecond: Double = 2048
    /// The unit of the crank event time: 1/1024 s.
    public static let crankEventTicksPerSecond: Double = 1024

    /// The flag bits of the first field.
    ///
    /// Bluetooth CPS 1.1 §3.2.1.
    public struct Flags: OptionSet, Hashable, Sendable {
        public var rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        public static let pedalPowerBalancePresent = Flags(rawValue: 1 << 0)
        public static let pedalPowerBalanceReferenceLeft = Flags(rawValue: 1 << 1)
        public static let accumulatedTorquePresent = Flags(rawValue: 1 << 2)
        public static let accumulatedTorqueSourceCrank = Flags(rawValue: 1 << 3)
        public static let wheelRevolutionDataPresent = Flags(rawValue: 1 << 4)
        public static let crankRevolutionDataPresent = Flags(rawValue: 1 << 5)
        public static let extremeForceMagnitudesPresent = Flags(rawValue: 1 << 6)
        public static let extremeTorqueMagnitudesPresent = Flags(rawValue: 1 << 7)
        public static let extremeAnglesPresent = Flags(rawValue: 1 << 8)
        public static let topDeadSpotAnglePresent = Flags(rawValue: 1 << 9)
        public static let bottomDeadSpotAnglePresent = Flags(rawValue: 1 << 10)
        public static let accumulatedEnergyPresent = Flags(rawValue: 1 << 11)
        public static let offsetCompensationIndicator = Flags(rawValue: 1 << 12)
    }

    /// The share of power from one pedal.
    ///
    /// Bluetooth CPS 1.1 §3.2.1.
    public struct PedalPowerBalance: Hashable, Sendable {
        /// Which pedal ``percent`` refers to.
        public enum Reference: Hashable, Sendable {
            /// The sensor does not say which pedal (flags bit 1 = 0).
            case unknown
            /// The value is the left pedal's share (flags bit 1 = 1).
            case left
        }

        /// The raw value in units of 1/2 %.
        public var rawValue: UInt8
        public var reference: Reference

        public init(rawValue: UInt8, reference: Reference) {
            self.rawValue = rawValue
            self.reference = reference
        }

        /// The balance in percent (0–127.5).
        public var percent: Double { Double(rawValue) / 2 }
    }

    /// The torque accumulated since the sensor was reset (wraps at 2^16).
    ///
    /// Bluetooth CPS 1.1 §3.2.1.
    public struct AccumulatedTorque: Hashable, Sendable {
        /// Where the torque is measured.
        public enum Source: Hashable, Sendable {
            case wheel
            case crank
        }

        /// The raw value in units of 1/32 N·m.
        public var rawValue: UInt16
        public var source: Source

        public init(rawValue: UInt16, source: Source) {
            self.rawValue = rawValue
            self.source = source
        }

        /// The torque in newton metres.
        public var newtonMetres: Double { Double(rawValue) / 32 }
    }

    /// The largest and smallest force on the crank during the last revolution, in newtons.
    ///
    /// Bluetooth CPS 1.1 §3.2.1.
    public struct ExtremeForceMagnitudes: Hashable, Sendable {
        public var maximum: Int16
        public var minimum: Int16

        public init(maximum: Int16, minimum: Int16) {
            self.maximum = maximum
            self.minimum = minimum
        }
    }

    /// The largest and smallest torque on the crank during the last revolution.
    ///
    /// Bluetooth CPS 1.1 §3.2.1.
    public struct ExtremeTorqueMagnitudes: Hashable, Sendable {
        /// Raw maximum in units of 1/32 N·m.
        public var maximumRaw: Int16
        /// Raw minimum in units of 1/32 N·m.
        public var minimumRaw: Int16

        public init(maximumRaw: Int16, minimumRaw: Int16) {
            self.maximumRaw = maximumRaw
            self.minimumRaw = minimumRaw
        }

        public var maximumNewtonMetres: Double { Double(maximumRaw) / 32 }
        public var minimumNewtonMetres: Double { Double(minimumRaw) / 32 }
    }

    /// The crank angles, in degrees, at which the extreme magnitudes were measured.
    ///
    /// On the wire the two 12-bit values share three bytes: the maximum in the low 12 bits and the
    /// minimum in the high 12 bits (maximum 0xABC and minimum 0x123 travel as `BC 3A 12`).
    ///
    /// Bluetooth CPS 1.1 §3.2.1.
    public struct ExtremeAngles: Hashable, Sendable {
        /// The largest value a 12-bit angle can hold.
        public static let maximumRawAngle: UInt16 = 0x0FFF

        /// Angle of the maximum magnitude, 0–4095 degrees (12 bits).
        public var maximum: UInt16
        /// Angle of the minimum magnitude, 0–4095 degrees (12 bits).
        public var minimum: UInt16

        /// Creates a pair of angles; each is truncated to 12 bits.
        public init(maximum: UInt16, minimum: UInt16) {
            self.maximum = maximum & Self.maximumRawAngle
            self.minimum = minimum & Self.maximumRawAngle
        }

        /// Unpacks the 24-bit wire value.
        public init(packed: UInt32) {
            self.init(maximum: UInt16(truncatingIfNeeded: packed), minimum: UInt16(truncatingIfNeeded: packed >> 12))
        }

        /// The 24-bit wire value.
        public var packed: UInt32 {
            UInt32(maximum & Self.maximumRawAngle) | UInt32(minimum & Self.maximumRawAngle) << 12
        }
    }

    /// Instantaneous power in watts (may be negative, e.g. while back-pedalling on some meters).
    public var instantaneousPower: Int16
    public var pedalPowerBalance: PedalPowerBalance?
    public var accumulatedTorque: AccumulatedTorque?
    /// Wheel revolutions and last wheel event time in **1/2048 s**.
    public var wheelRevolutions: WheelRevolutionData?
    /// Crank revolutions and last crank event time in 1/1024 s.
    public var crankRevolutions: CrankRevolutionData?
    public var extremeForceMagnitudes: ExtremeForceMagnitudes?
    public var extremeTorqueMagnitudes: ExtremeTorqueMagnitudes?
    public var extremeAngles: ExtremeAngles?
    /// Top dead spot angle in degrees.
    public var topDeadSpotAngle: UInt16?
    /// Bottom dead spot angle in degrees.
    public var bottomDeadSpotAngle: UInt16?
    /// Energy accumulated since the sensor was reset, in kilojoules.
    public var accumulatedEnergy: UInt16?
    /// Whether the sensor indicates that its offset compensation is running (flags bit 12).
    public var offsetCompensationIndicator: Bool

    public init(
        instantaneousPower: Int16,
        pedalPowerBalance: PedalPowerBalance? = nil,
        accumulatedTorque: AccumulatedTorque? = nil,
        wheelRevolutions: WheelRevolutionData? = nil,
        crankRevolutions: CrankRevolutionData? = nil,
        extremeForceMagnitudes: ExtremeForceMagnitudes? = nil,
        extremeTorqueMagnitudes: ExtremeTorqueMagnitudes? = nil,
        extremeAngles: ExtremeAngles? = nil,
        topDeadSpotAngle: UInt16? = nil,
        bottomDeadSpotAngle: UInt16? = nil,
        accumulatedEnergy: UInt16? = nil,
        offsetCompensationIndicator: Bool = false
    ) {
        self.instantaneousPower = instantaneousPower
        self.pedalPowerBalance = pedalPowerBalance
        self.accumulatedTorque = accumulatedTorque
        self.wheelRevolutions = wheelRevolutions
        self.crankRevolutions = crankRevolutions
        self.extremeForceMagnitudes = extremeForceMagnitudes
        self.extremeTorqueMagnitudes = extremeTorqueMagnitudes
        self.extremeAngles = extremeAngles
        self.topDeadSpotAngle = topDeadSpotAngle
        self.bottomDeadSpotAngle = bottomDeadSpotAngle
        self.accumulatedEnergy = accumulatedEnergy
        self.offsetCompensationIndicator = offsetCompensationIndicator
    }

    /// Decodes a Cycling Power Measurement value.
    ///
    /// - Throws: ``DecodeError`` naming the first mandatory or flagged field that is cut short,
    ///   at the offset where that field should start.
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        let flags = Flags(rawValue: try reader.readUInt16("flags"))
        instantaneousPower = try reader.readInt16("instantaneous power")

        pedalPowerBalance =
            flags.contains(.pedalPowerBalancePresent)
            ? PedalPowerBalance(
                rawValue: try reader.readUInt8("pedal power balance"),
                reference: flags.contains(.pedalPowerBalanceReferenceLeft) ? .left : .unknown)
            : nil
        accumulatedTorque =
            flags.contains(.accumulatedTorquePresent)
            ? AccumulatedTorque(
                rawValue: try reader.readUInt16("accumulated torque"),
                source: flags.contains(.accumulatedTorqueSourceCrank) ? .crank : .wheel)
            : nil
        wheelRevolutions =
            flags.contains(.wheelRevolutionDataPresent) ? try WheelRevolutionData.read(from: &reader) : nil
        crankRevolutions =
            flags.contains(.crankRevolutionDataPresent) ? try CrankRevolutionData.read(from: &reader) : nil
        if flags.contains(.extremeForceMagnitudesPresent) {
            let maximum = try reader.readInt16("maximum force magnitude")
            let minimum = try reader.readInt16("minimum force magnitude")
            extremeForceMagnitudes = ExtremeForceMagnitudes(maximum: maximum, minimum: minimum)
        } else {
            extremeForceMagnitudes = nil
        }
        if flags.contains(.extremeTorqueMagnitudesPresent) {
            let maximum = try reader.readInt16("maximum torque magnitude")
            let minimum = try reader.readInt16("minimum torque magnitude")
            extremeTorqueMagnitudes = ExtremeTorqueMagnitudes(maximumRaw: maximum, minimumRaw: minimum)
        } else {
            extremeTorqueMagnitudes = nil
        }
        extremeAngles =
            flags.contains(.extremeAnglesPresent)
            ? ExtremeAngles(packed: try reader.readUInt24("extreme angles")) : nil
        topDeadSpotAngle = flags.contains(.topDeadSpotAnglePresent) ? try reader.readUInt16("top dead spot angle") : nil
        bottomDeadSpotAngle =
            flags.contains(.bottomDeadSpotAnglePresent)
            ? try reader.readUInt16("bottom dead spot angle") : nil
        accumulatedEnergy =
            flags.contains(.accumulatedEnergyPresent) ? try reader.readUInt16("accumulated energy") : nil
        offsetCompensationIndicator = flags.contains(.offsetCompensationIndicator)
    }

    /// The flags ``encode()`` writes, derived from which fields are present.
    public var flags: Flags {
        var flags: Flags = []
        if let pedalPowerBalance {
            flags.insert(.pedalPowerBalancePresent)
            if pedalPowerBalance.reference == .left { flags.insert(.pedalPowerBalanceReferenceLeft) }
        }
        if let accumulatedTorque {
            flags.insert(.accumulatedTorquePresent)
            if accumulatedTorque.source == .crank { flags.insert(.accumulatedTorqueSourceCrank) }
        }
        if wheelRevolutions != nil { flags.insert(.wheelRevolutionDataPresent) }
        if crankRevolutions != nil { flags.insert(.crankRevolutionDataPresent) }
        if extremeForceMagnitudes != nil { flags.insert(.extremeForceMagnitudesPresent) }
        if extremeTorqueMagnitudes != nil { flags.insert(.extremeTorqueMagnitudesPresent) }
        if extremeAngles != nil { flags.insert(.extremeAnglesPresent) }
        if topDeadSpotAngle != nil { flags.insert(.topDeadSpotAnglePresent) }
        if bottomDeadSpotAngle != nil { flags.insert(.bottomDeadSpotAnglePresent) }
        if accumulatedEnergy != nil { flags.insert(.accumulatedEnergyPresent) }
        if offsetCompensationIndicator { flags.insert(.offsetCompensationIndicator) }
        return flags
    }

    /// Encodes the measurement: flags derived from the present fields, fields in spec order.
    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 34)
        writer.write(flags.rawValue)
        writer.write(instantaneousPower)
        if let pedalPowerBalance { writer.write(pedalPowerBalance.rawValue) }
        if let accumulatedTorque { writer.write(accumulatedTorque.rawValue) }
        wheelRevolutions?.write(to: &writer)
        crankRevolutions?.write(to: &writer)
        if let extremeForceMagnitudes {
            writer.write(extremeForceMagnitudes.maximum)
            writer.write(extremeForceMagnitudes.minimum)
        }
        if let extremeTorqueMagnitudes {
            writer.write(extremeTorqueMagnitudes.maximumRaw)
            writer.write(extremeTorqueMagnitudes.minimumRaw)
        }
        if let extremeAngles { writer.writeUInt24(extremeAngles.packed) }
        if let topDeadSpotAngle { writer.write(topDeadSpotAngle) }
        if let bottomDeadSpotAngle { writer.write(bottomDeadSpotAngle) }
        if let accumulatedEnergy { writer.write(accumulatedEnergy) }
        return writer.bytes
    }
}
