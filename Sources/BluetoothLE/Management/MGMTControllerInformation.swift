import ByteCoding

/// The reply to the management command Read Controller Information (0x0004): the adapter's
/// address and its supported and current settings as the kernel keeps them.
///
/// Return parameters: `address[6] (least significant first) · version u8 · manufacturer u16 ·
/// supported settings u32 · current settings u32 · class of device[3] · name[249] · short
/// name[11]` (280 bytes; names are NUL-padded UTF-8).
///
/// This is where "LE is off" shows: a dual-mode controller brought up with `hciconfig` has the
/// host's LE support disabled until `btmgmt le on` (or bluetoothd) enables it, and the kernel
/// then refuses LE connections.
///
/// BlueZ `doc/mgmt-api.txt` ("Read Controller Information Command", settings bits).
public struct MGMTControllerInformation: Hashable, Sendable {
    /// Settings bits shared by Supported_Settings and Current_Settings.
    public struct Settings: OptionSet, Hashable, Sendable {
        public var rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let powered = Settings(rawValue: 1 << 0)
        public static let connectable = Settings(rawValue: 1 << 1)
        public static let discoverable = Settings(rawValue: 1 << 3)
        public static let bondable = Settings(rawValue: 1 << 4)
        public static let bredr = Settings(rawValue: 1 << 7)
        public static let lowEnergy = Settings(rawValue: 1 << 9)
        public static let advertising = Settings(rawValue: 1 << 10)
        /// In Current_Settings: the controller's identity is its static random address (it has no
        /// public address, or BR/EDR is off and a static address is set), not ``address``.
        public static let staticAddress = Settings(rawValue: 1 << 15)
    }

    /// The size of the return parameters.
    public static let byteCount = 280

    public var address: BluetoothAddress
    public var version: UInt8
    public var manufacturer: UInt16
    public var supportedSettings: Settings
    public var currentSettings: Settings
    public var name: String

    public init(
        address: BluetoothAddress, version: UInt8 = 0, manufacturer: UInt16 = 0,
        supportedSettings: Settings, currentSettings: Settings, name: String = ""
    ) {
        self.address = address
        self.version = version
        self.manufacturer = manufacturer
        self.supportedSettings = supportedSettings
        self.currentSettings = currentSettings
        self.name = name
    }

    /// Decodes the return parameters of the Command Complete (after opcode and status).
    public init(returnParameters bytes: [UInt8]) throws(DecodeError) {
        var reader = ByteReader(bytes)
        let addressBytes = try reader.readBytes(6, "Address")
        guard let address = BluetoothAddress(bytes: Array(addressBytes.reversed())) else {
            throw DecodeError("Address is not 6 bytes", at: 0)
        }
        self.address = address
        version = try reader.readUInt8("Bluetooth_Version")
        manufacturer = try reader.readUInt16("Manufacturer")
        supportedSettings = Settings(rawValue: try reader.readUInt32("Supported_Settings"))
        currentSettings = Settings(rawValue: try reader.readUInt32("Current_Settings"))
        _ = try reader.readBytes(3, "Class_Of_Device")
        let nameBytes = try reader.readBytes(249, "Name")
        _ = try reader.readBytes(11, "Short_Name")
        try reader.expectEnd("Read Controller Information return parameters")
        name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The return parameters, for tests and fuzz round trips.
    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.byteCount)
        writer.write(contentsOf: address.littleEndianBytes)
        writer.write(version)
        writer.write(manufacturer)
        writer.write(supportedSettings.rawValue)
        writer.write(currentSettings.rawValue)
        writer.write(contentsOf: [UInt8](repeating: 0, count: 3))
        let name = Array(self.name.utf8.prefix(248))
        writer.write(contentsOf: name + [UInt8](repeating: 0, count: 249 - name.count))
        writer.write(contentsOf: [UInt8](repeating: 0, count: 11))
        return writer.bytes
    }

    /// The public address; `nil` when the controller has none (00:00:00:00:00:00: an LE-only
    /// controller, which needs a static address before it can be powered).
    public var publicAddress: BluetoothAddress? { address.rawValue == 0 ? nil : address }

    /// Whether the identity address the kernel uses for LE, and matches a socket's bound address
    /// against, is the static random address (Current_Settings bit 15) rather than the public one.
    /// The static address itself is not in this reply: the kernel returns only the public one.
    public var identityIsStaticAddress: Bool { currentSettings.contains(.staticAddress) || publicAddress == nil }

    /// Whether the adapter is powered with LE enabled: what an LE connection or scan needs.
    public var isReadyForLowEnergy: Bool { currentSettings.isSuperset(of: [.powered, .lowEnergy]) }
}
