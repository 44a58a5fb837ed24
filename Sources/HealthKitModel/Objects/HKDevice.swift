import Foundation

/// The hardware that produced a sample: a strap, a power meter, this computer.
///
/// HealthKit: HKDevice.
public final class HKDevice: NSObject, NSCopying, Sendable {
    public let name: String?
    public let manufacturer: String?
    public let model: String?
    public let hardwareVersion: String?
    public let firmwareVersion: String?
    public let softwareVersion: String?
    /// An identifier of the device on this host: for Bluetooth devices their address.
    public let localIdentifier: String?
    public let udiDeviceIdentifier: String?

    public init(
        name: String?, manufacturer: String?, model: String?, hardwareVersion: String?,
        firmwareVersion: String?, softwareVersion: String?, localIdentifier: String?,
        udiDeviceIdentifier: String?
    ) {
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.hardwareVersion = hardwareVersion
        self.firmwareVersion = firmwareVersion
        self.softwareVersion = softwareVersion
        self.localIdentifier = localIdentifier
        self.udiDeviceIdentifier = udiDeviceIdentifier
    }

    /// The device this program runs on: the host's name, "Linux", and the kernel release.
    public class func local() -> HKDevice {
        var uts = utsname()
        _ = uname(&uts)
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
        }
        return HKDevice(
            name: ProcessInfo.processInfo.hostName, manufacturer: nil, model: field(uts.sysname),
            hardwareVersion: field(uts.machine), firmwareVersion: nil,
            softwareVersion: field(uts.release), localIdentifier: nil, udiDeviceIdentifier: nil)
    }

    package var fields: [String?] {
        [
            name, manufacturer, model, hardwareVersion, firmwareVersion, softwareVersion, localIdentifier,
            udiDeviceIdentifier,
        ]
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKDevice else { return false }
        return other.fields == fields
    }

    public override var hash: Int { fields.hashValue }
    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override var description: String {
        let parts = [
            ("name", name), ("manufacturer", manufacturer), ("model", model), ("hardware", hardwareVersion),
            ("firmware", firmwareVersion), ("software", softwareVersion), ("localIdentifier", localIdentifier),
        ]
        return "<HKDevice " + parts.compactMap { key, value in value.map { "\(key):\($0)" } }.joined(separator: ", ")
            + ">"
    }
}

/// Device property keys. HealthKit: HKDevicePropertyKey…
public let HKDevicePropertyKeyName = "name"
public let HKDevicePropertyKeyManufacturer = "manufacturer"
public let HKDevicePropertyKeyModel = "model"
public let HKDevicePropertyKeyHardwareVersion = "hardwareVersion"
public let HKDevicePropertyKeyFirmwareVersion = "firmwareVersion"
public let HKDevicePropertyKeySoftwareVersion = "softwareVersion"
public let HKDevicePropertyKeyLocalIdentifier = "localIdentifier"
public let HKDevicePropertyKeyUDIDeviceIdentifier = "UDIDeviceIdentifier"
