import ByteCoding

/// What a fitness machine reports and which targets it accepts (characteristic 0x2ACC, read).
///
/// ```
/// fitness machine features u32 · target setting features u32
/// ```
///
/// Machine feature bits: 0 average speed, 1 cadence, 2 total distance, 3 inclination, 4 elevation gain, 5 pace,
/// 6 step count, 7 resistance level, 8 stride count, 9 expended energy, 10 heart rate measurement, 11 metabolic
/// equivalent, 12 elapsed time, 13 remaining time, 14 power measurement, 15 force on belt and power output,
/// 16 user data retention. Target setting bits: 0 speed, 1 inclination, 2 resistance, 3 power, 4 heart rate,
/// 5 targeted expended energy, … 13 indoor bike simulation parameters, 14 wheel circumference, 15 spin down,
/// 16 targeted cadence. Reserved bits are kept as they are. Bytes after the eighth are ignored.
///
/// Bluetooth FTMS 1.0 §4.3 (Fitness Machine Feature).
public struct FitnessMachineFeature: GATTCharacteristicValue {
    public static var characteristicUUID: UInt16 { GATTAssignedNumbers.Characteristic.fitnessMachineFeature }

    /// Bits of the first field (what the machine measures).
    public struct Machine: OptionSet, Hashable, Sendable {
        public var rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let averageSpeed = Machine(rawValue: 1 << 0)
        public static let cadence = Machine(rawValue: 1 << 1)
        public static let totalDistance = Machine(rawValue: 1 << 2)
        public static let inclination = Machine(rawValue: 1 << 3)
        public static let elevationGain = Machine(rawValue: 1 << 4)
        public static let pace = Machine(rawValue: 1 << 5)
        public static let stepCount = Machine(rawValue: 1 << 6)
        public static let resistanceLevel = Machine(rawValue: 1 << 7)
        public static let strideCount = Machine(rawValue: 1 << 8)
        public static let expendedEnergy = Machine(rawValue: 1 << 9)
        public static let heartRate = Machine(rawValue: 1 << 10)
        public static let metabolicEquivalent = Machine(rawValue: 1 << 11)
        public static let elapsedTime = Machine(rawValue: 1 << 12)
        public static let remainingTime = Machine(rawValue: 1 << 13)
        public static let power = Machine(rawValue: 1 << 14)
        public static let forceOnBeltAndPowerOutput = Machine(rawValue: 1 << 15)
        public static let userDataRetention = Machine(rawValue: 1 << 16)
    }

    /// Bits of the second field (which targets the control point accepts).
    public struct TargetSetting: OptionSet, Hashable, Sendable {
        public var rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let speed = TargetSetting(rawValue: 1 << 0)
        public static let inclination = TargetSetting(rawValue: 1 << 1)
        public static let resistance = TargetSetting(rawValue: 1 << 2)
        public static let power = TargetSetting(rawValue: 1 << 3)
        public static let heartRate = TargetSetting(rawValue: 1 << 4)
        public static let indoorBikeSimulation = TargetSetting(rawValue: 1 << 13)
        public static let wheelCircumference = TargetSetting(rawValue: 1 << 14)
        public static let spinDown = TargetSetting(rawValue: 1 << 15)
        public static let cadence = TargetSetting(rawValue: 1 << 16)
    }

    public var machine: Machine
    public var targetSetting: TargetSetting

    public init(machine: Machine, targetSetting: TargetSetting) {
        self.machine = machine
        self.targetSetting = targetSetting
    }

    /// Decodes the eight-byte value.
    ///
    /// - Throws: ``DecodeError`` naming the field that is cut short.
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        machine = Machine(rawValue: try reader.readUInt32("fitness machine features"))
        targetSetting = TargetSetting(rawValue: try reader.readUInt32("target setting features"))
    }

    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 8)
        writer.write(machine.rawValue)
        writer.write(targetSetting.rawValue)
        return writer.bytes
    }
}
