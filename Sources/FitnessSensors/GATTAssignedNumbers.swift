import ByteCoding

/// The 16-bit Bluetooth SIG assigned numbers of the GATT services and characteristics that
/// fitness sensors expose.
///
/// A 16-bit assigned number `0xXXXX` stands for the 128-bit UUID
/// `0000XXXX-0000-1000-8000-00805F9B34FB` (Core Specification Vol 3, Part B §2.5.1).
/// The constants are plain `UInt16` values so that they can be compared with what a GATT client
/// reads from the wire and used in `switch` statements.
///
/// Bluetooth SIG Assigned Numbers (GATT Services; Characteristics; Descriptors).
public enum GATTAssignedNumbers {
    /// Primary service UUIDs.
    public enum Service {
        /// Heart Rate service (HRS 1.0).
        public static let heartRate: UInt16 = 0x180D
        /// Cycling Power service (CPS 1.1).
        public static let cyclingPower: UInt16 = 0x1818
        /// Cycling Speed and Cadence service (CSCS 1.0).
        public static let cyclingSpeedAndCadence: UInt16 = 0x1816
        /// Battery service (BAS 1.0).
        public static let battery: UInt16 = 0x180F
        /// Device Information service (DIS 1.1).
        public static let deviceInformation: UInt16 = 0x180A
        /// Running Speed and Cadence service (RSCS 1.0).
        public static let runningSpeedAndCadence: UInt16 = 0x1814
        /// Fitness Machine service (FTMS 1.0).
        public static let fitnessMachine: UInt16 = 0x1826
    }

    /// Characteristic UUIDs.
    public enum Characteristic {
        /// Heart Rate Measurement (notify), HRS 1.0 §3.1.
        public static let heartRateMeasurement: UInt16 = 0x2A37
        /// Body Sensor Location (read), HRS 1.0 §3.2.
        public static let bodySensorLocation: UInt16 = 0x2A38
        /// Heart Rate Control Point (write), HRS 1.0 §3.3.
        public static let heartRateControlPoint: UInt16 = 0x2A39
        /// Cycling Power Measurement (notify), CPS 1.1 §3.2.
        public static let cyclingPowerMeasurement: UInt16 = 0x2A63
        /// Cycling Power Feature (read), CPS 1.1 §3.1.
        public static let cyclingPowerFeature: UInt16 = 0x2A65
        /// Sensor Location (read), shared by CPS and CSCS.
        public static let sensorLocation: UInt16 = 0x2A5D
        /// CSC Measurement (notify), CSCS 1.0 §3.1.
        public static let cscMeasurement: UInt16 = 0x2A5B
        /// CSC Feature (read), CSCS 1.0 §3.2.
        public static let cscFeature: UInt16 = 0x2A5C
        /// RSC Measurement (notify), RSCS 1.0 §3.1.
        public static let rscMeasurement: UInt16 = 0x2A53
        /// RSC Feature (read), RSCS 1.0 §3.2.
        public static let rscFeature: UInt16 = 0x2A54
        /// Fitness Machine Feature (read), FTMS 1.0 §4.3.
        public static let fitnessMachineFeature: UInt16 = 0x2ACC
        /// Treadmill Data (notify), FTMS 1.0 §4.6.
        public static let treadmillData: UInt16 = 0x2ACD
        /// Cross Trainer Data (notify), FTMS 1.0 §4.7.
        public static let crossTrainerData: UInt16 = 0x2ACE
        /// Rower Data (notify), FTMS 1.0 §4.8.
        public static let rowerData: UInt16 = 0x2AD1
        /// Indoor Bike Data (notify), FTMS 1.0 §4.9.
        public static let indoorBikeData: UInt16 = 0x2AD2
        /// Training Status (read, notify), FTMS 1.0 §4.10.
        public static let trainingStatus: UInt16 = 0x2AD3
        /// Supported Speed Range (read), FTMS 1.0 §4.13.
        public static let supportedSpeedRange: UInt16 = 0x2AD4
        /// Supported Inclination Range (read), FTMS 1.0 §4.14.
        public static let supportedInclinationRange: UInt16 = 0x2AD5
        /// Supported Resistance Level Range (read), FTMS 1.0 §4.15.
        public static let supportedResistanceLevelRange: UInt16 = 0x2AD6
        /// Supported Power Range (read), FTMS 1.0 §4.18.
        public static let supportedPowerRange: UInt16 = 0x2AD8
        /// Fitness Machine Control Point (write, indicate), FTMS 1.0 §4.16.
        public static let fitnessMachineControlPoint: UInt16 = 0x2AD9
        /// Fitness Machine Status (notify), FTMS 1.0 §4.17.
        public static let fitnessMachineStatus: UInt16 = 0x2ADA
        /// Battery Level (read, optionally notify), BAS 1.0 §3.1.
        public static let batteryLevel: UInt16 = 0x2A19
        /// Manufacturer Name String, DIS 1.1 §3.1.
        public static let manufacturerNameString: UInt16 = 0x2A29
        /// Model Number String, DIS 1.1 §3.2.
        public static let modelNumberString: UInt16 = 0x2A24
        /// Serial Number String, DIS 1.1 §3.3.
        public static let serialNumberString: UInt16 = 0x2A25
        /// Hardware Revision String, DIS 1.1 §3.4.
        public static let hardwareRevisionString: UInt16 = 0x2A27
        /// Firmware Revision String, DIS 1.1 §3.5.
        public static let firmwareRevisionString: UInt16 = 0x2A26
        /// Software Revision String, DIS 1.1 §3.6.
        public static let softwareRevisionString: UInt16 = 0x2A28
    }

    /// Descriptor UUIDs.
    public enum Descriptor {
        /// Client Characteristic Configuration (`01 00` notify, `02 00` indicate), Core Vol 3 Part G §3.3.3.3.
        public static let clientCharacteristicConfiguration: UInt16 = 0x2902
    }
}

/// A characteristic value with a fixed assigned number that decodes from and encodes to the
/// bytes of an ATT attribute value.
///
/// Decoding is total: any byte sequence either yields a value or throws a ``DecodeError`` that
/// names the offending byte. `encode()` produces the canonical form, so for every decoded value
/// `try Self(bytes: value.encode()) == value`.
public protocol GATTCharacteristicValue: Hashable, Sendable {
    /// The characteristic's 16-bit assigned number (see ``GATTAssignedNumbers/Characteristic``).
    static var characteristicUUID: UInt16 { get }
    /// Decodes an attribute value.
    init(bytes: [UInt8]) throws(DecodeError)
    /// Encodes the value as an attribute value, in canonical form.
    func encode() -> [UInt8]
}
