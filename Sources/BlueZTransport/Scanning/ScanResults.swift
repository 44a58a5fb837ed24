import BluetoothLE
import FitnessSensors

/// A device heard while scanning, merged from its advertisements and scan responses.
public struct DiscoveredDevice: Hashable, Sendable {
    public var address: BluetoothAddress
    /// The complete or shortened local name, when advertised (often only in the scan response).
    public var name: String?
    /// The strongest recent RSSI in dBm.
    public var rssi: Int8?
    /// Service UUIDs advertised (complete or incomplete lists).
    public var services: [BluetoothUUID]
    public var appearance: GAPAppearance?
    /// The adapters that heard it (`hci0`, …), the one with the strongest signal first, when a scan listened with
    /// several; empty otherwise.
    public var adapters: [String]

    public init(
        address: BluetoothAddress, name: String? = nil, rssi: Int8? = nil, services: [BluetoothUUID] = [],
        appearance: GAPAppearance? = nil, adapters: [String] = []
    ) {
        self.address = address
        self.name = name
        self.rssi = rssi
        self.services = services
        self.appearance = appearance
        self.adapters = adapters
    }

    /// What kind of fitness sensor it looks like: by advertised service, else by appearance
    /// (0x0340/0x0341 heart rate, 0x0484 power, 0x0482/0x0483/0x0485 speed and cadence, 0x0440–0x0443 a running
    /// walking sensor; a fitness machine has no appearance of its own).
    public var kind: Kind {
        typealias S = GATTAssignedNumbers.Service
        let short = Set(services.compactMap(\.shortValue))
        let appearance = self.appearance?.rawValue ?? 0
        if short.contains(S.heartRate) || [0x0340, 0x0341].contains(appearance) { return .heartRate }
        if short.contains(S.fitnessMachine) { return .fitnessMachine }
        if short.contains(S.cyclingPower) || appearance == 0x0484 { return .cyclingPower }
        if short.contains(S.cyclingSpeedAndCadence) || [0x0482, 0x0483, 0x0485].contains(appearance) {
            return .speedAndCadence
        }
        if short.contains(S.runningSpeedAndCadence) || (0x0440 ... 0x0443).contains(appearance) { return .footPod }
        return .other
    }

    /// Sorting rank: heart rate, then fitness machines (trainers, treadmills, rowers), power, speed and cadence,
    /// foot pods, then everything else.
    public enum Kind: Int, Comparable, Sendable, CustomStringConvertible {
        case heartRate, fitnessMachine, cyclingPower, speedAndCadence, footPod, other
        public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
        public var description: String {
            switch self {
            case .heartRate: "heart rate"
            case .fitnessMachine: "fitness machine"
            case .cyclingPower: "power"
            case .speedAndCadence: "speed/cadence"
            case .footPod: "foot pod"
            case .other: "-"
            }
        }
    }

    /// Whether anything was heard of it besides its address: a name, a signal strength, a service or an appearance.
    /// (bluetoothd makes an object for every advertiser while any client discovers with a filter, and fills it in
    /// only for those that match it: `src/adapter.c`, `device_is_discoverable` and `btd_adapter_device_found`.)
    public var isDescribed: Bool { name != nil || rssi != nil || !services.isEmpty || appearance != nil }

    /// The address as `workout pair` takes it.
    public var addressSpelling: String { SensorAddress.spelling(address) }
}

/// Merges advertising reports into one entry per device.
///
/// Pure: feed it what was heard in arrival order (the kernel's Device Found events), read
/// ``devices``. Malformed advertising data is skipped for that report only.
///
/// BlueZ `doc/mgmt-api.txt` ("Device Found Event"); Core 5.3 Vol 3 Part C §11 (advertising data).
public struct ScanResults: Sendable {
    private var byAddress: [BluetoothAddress: DiscoveredDevice] = [:]
    private var order: [BluetoothAddress] = []

    public init() {}

    /// Takes a device the kernel found while discovering; BR/EDR devices are ignored.
    public mutating func add(_ found: MGMTDeviceFound) {
        guard found.isLowEnergy else { return }
        add(address: found.address, data: found.data, rssi: found.rssi)
    }

    public mutating func add(address: BluetoothAddress, data: [UInt8], rssi: Int8?) {
        var device = byAddress[address] ?? DiscoveredDevice(address: address)
        if byAddress[address] == nil { order.append(address) }
        if let rssi = Self.measured(rssi) { device.rssi = rssi }
        if let advertising = try? AdvertisingData(bytes: data) {
            if let name = advertising.localName { device.name = name }
            for uuid in advertising.serviceUUIDs where !device.services.contains(uuid) { device.services.append(uuid) }
            if let appearance = advertising.appearance { device.appearance = appearance }
        }
        byAddress[address] = device
    }

    /// Takes a device another source already merged (bluetoothd's Device1 properties): its name, RSSI and
    /// appearance replace earlier ones, its services and adapters join them.
    public mutating func add(_ device: DiscoveredDevice) {
        var merged = byAddress[device.address] ?? DiscoveredDevice(address: device.address)
        if byAddress[device.address] == nil { order.append(device.address) }
        if let name = device.name { merged.name = name }
        if let rssi = Self.measured(device.rssi) { merged.rssi = rssi }
        if let appearance = device.appearance { merged.appearance = appearance }
        for uuid in device.services where !merged.services.contains(uuid) { merged.services.append(uuid) }
        for adapter in device.adapters where !merged.adapters.contains(adapter) { merged.adapters.append(adapter) }
        byAddress[device.address] = merged
    }

    /// An RSSI, unless it is 127: "RSSI is not available" (Core 5.3 Vol 4 Part E §7.7.65.2), which a controller that
    /// cannot measure reports (BlueZ's emulated one does).
    static func measured(_ rssi: Int8?) -> Int8? { rssi == 127 ? nil : rssi }

    /// Runs one scan per adapter at once and merges what they heard (``merging(_:)``): how several adapters listen
    /// together, through bluetoothd or the management channel.
    public static func together(
        _ scans: [(adapter: String, scan: @Sendable () async throws -> [DiscoveredDevice])]
    ) async throws -> [DiscoveredDevice] {
        try await withThrowingTaskGroup(of: (adapter: String, devices: [DiscoveredDevice]).self) { group in
            for (adapter, scan) in scans { group.addTask { (adapter, try await scan()) } }
            var heard: [(adapter: String, devices: [DiscoveredDevice])] = []
            for try await scan in group { heard.append(scan) }
            return merging(heard)
        }
    }

    /// What several adapters heard, one device per address: the strongest signal's adapter first, and its RSSI.
    public static func merging(_ scans: [(adapter: String, devices: [DiscoveredDevice])]) -> [DiscoveredDevice] {
        var results = ScanResults()
        let heard = scans.flatMap { scan in scan.devices.map { (scan.adapter, $0) } }
        // Weakest first, so that the strongest signal's RSSI is the one kept and its adapter leads.
        let strength = { (device: DiscoveredDevice) in Int(measured(device.rssi) ?? -128) }
        for (adapter, device) in heard.sorted(by: { strength($0.1) < strength($1.1) }) {
            var device = device
            device.adapters = [adapter]
            results.add(device)
        }
        return results.devices.map { device in
            var device = device
            device.adapters.reverse()
            return device
        }
    }

    /// Heart-rate, power and speed/cadence devices first, then the rest; strongest signal first
    /// within each group.
    public var devices: [DiscoveredDevice] {
        order.compactMap { byAddress[$0] }.enumerated().sorted { a, b in
            if a.element.kind != b.element.kind { return a.element.kind < b.element.kind }
            let ra = Int(a.element.rssi ?? -128), rb = Int(b.element.rssi ?? -128)
            if ra != rb { return ra > rb }
            return a.offset < b.offset
        }.map(\.element)
    }
}
