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
