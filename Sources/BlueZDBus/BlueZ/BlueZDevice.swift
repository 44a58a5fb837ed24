import BlueZTransport
import BluetoothLE

/// bluetoothd's names: its bus name and the interfaces this program uses.
///
/// BlueZ `doc/org.bluez.Adapter.rst`, `org.bluez.Device.rst`, `org.bluez.GattCharacteristic.rst`,
/// `org.bluez.AgentManager.rst`, `org.bluez.Agent.rst`, `org.bluez.Battery.rst`.
public enum BlueZ {
    public static let service = "org.bluez"
    public static let adapter = "org.bluez.Adapter1"
    public static let device = "org.bluez.Device1"
    public static let characteristic = "org.bluez.GattCharacteristic1"
    public static let battery = "org.bluez.Battery1"
    public static let agentManager = "org.bluez.AgentManager1"
    public static let agent = "org.bluez.Agent1"
    public static let objectManager = "org.freedesktop.DBus.ObjectManager"
    public static let properties = "org.freedesktop.DBus.Properties"
}

/// A device as bluetoothd exports it (`org.bluez.Device1`): what scanning shows and connecting needs.
public struct BlueZDevice: Sendable, Equatable {
    public var path: String
    public var properties: [String: DBusValue]

    public init(path: String, properties: [String: DBusValue]) {
        self.path = path
        self.properties = properties
    }

    /// The address with its type (`AddressType` "random" or "public"), nil when bluetoothd sent none or junk.
    public var address: BluetoothAddress? {
        guard let text = properties["Address"]?.string else { return nil }
        let type: BluetoothAddressType = properties["AddressType"]?.string == "random" ? .random : .public
        return BluetoothAddress(text, type: type)
    }

    /// The advertised name (`Name`), else bluetoothd's alias when it is not just the address.
    public var name: String? {
        if let name = properties["Name"]?.string, !name.isEmpty { return name }
        return nil
    }

    public var rssi: Int8? { properties["RSSI"]?.integer.map { Int8(clamping: $0) } }
    public var services: [BluetoothUUID] { (properties["UUIDs"]?.stringArray ?? []).compactMap(BluetoothUUID.init) }
    public var appearance: GAPAppearance? {
        properties["Appearance"]?.integer.map { GAPAppearance(rawValue: UInt16(truncatingIfNeeded: $0)) }
    }
    public var adapterPath: String? { properties["Adapter"]?.string }
    public var isConnected: Bool { properties["Connected"]?.bool ?? false }
    public var servicesResolved: Bool { properties["ServicesResolved"]?.bool ?? false }
    public var isPaired: Bool { properties["Paired"]?.bool ?? false }
    public var isTrusted: Bool { properties["Trusted"]?.bool ?? false }

    /// The device as `workout scan` lists it; nil without a readable address.
    public var discovered: DiscoveredDevice? {
        guard let address else { return nil }
        return DiscoveredDevice(address: address, name: name, rssi: rssi, services: services, appearance: appearance)
    }

    /// Whether this is the device at `address`: the same 48-bit value (bluetoothd knows the type; a person may not
    /// have written /random).
    public func matches(_ address: BluetoothAddress) -> Bool { self.address?.rawValue == address.rawValue }
}

/// A GATT characteristic as bluetoothd exports it (`org.bluez.GattCharacteristic1`).
public struct BlueZCharacteristic: Sendable, Equatable {
    public var path: String
    public var uuid: BluetoothUUID
    public var flags: [String]

    /// Nil for an object without a readable `UUID`.
    public init?(path: String, properties: [String: DBusValue]) {
        guard let text = properties["UUID"]?.string, let uuid = BluetoothUUID(text) else { return nil }
        self.path = path
        self.uuid = uuid
        self.flags = properties["Flags"]?.stringArray ?? []
    }

    public var canNotify: Bool { flags.contains("notify") || flags.contains("indicate") }
    public var canRead: Bool { flags.contains("read") }
}

extension BlueZObjects {
    /// The devices bluetoothd knows, under `adapter` when given.
    public func devices(under adapter: String? = nil) -> [BlueZDevice] {
        paths(with: BlueZ.device).compactMap { path in
            guard let properties = properties(path, BlueZ.device) else { return nil }
            let device = BlueZDevice(path: path, properties: properties)
            if let adapter, device.adapterPath != adapter, !path.hasPrefix(adapter + "/") { return nil }
            return device
        }
    }

    public func device(at path: String) -> BlueZDevice? {
        properties(path, BlueZ.device).map { BlueZDevice(path: path, properties: $0) }
    }

    /// The characteristics below a device's path.
    public func characteristics(of devicePath: String) -> [BlueZCharacteristic] {
        paths(with: BlueZ.characteristic).filter { $0.hasPrefix(devicePath + "/") }.compactMap { path in
            properties(path, BlueZ.characteristic).flatMap { BlueZCharacteristic(path: path, properties: $0) }
        }
    }

    /// The adapters, sorted by path (`/org/bluez/hci0` first), with whether each is powered.
    public var adapters: [(path: String, powered: Bool)] {
        paths(with: BlueZ.adapter).map { ($0, properties($0, BlueZ.adapter)?["Powered"]?.bool ?? false) }
    }
}
