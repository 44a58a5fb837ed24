import BluetoothLE

/// Where a sensor is reached: a Bluetooth LE device address, or the path of a simulated
/// peripheral's `AF_UNIX` socket.
///
/// Accepted spellings, wherever the tool takes an address:
/// * `AA:BB:CC:DD:EE:FF` — a public device address (as printed, most significant byte first);
/// * `AA:BB:CC:DD:EE:FF/random` — a random (static or private) address, as `workout scan` shows it;
/// * `unix:PATH` — a simulated peripheral (`workout peripheral --listen PATH`);
/// * any of the first two prefixed `ble:` — the sensor identifier form.
///
/// Core 5.3 Vol 6 Part B §1.3 (device address types). The address type must be the one the
/// device advertises with: a public address named as random (or the reverse) never connects.
public enum SensorAddress: Hashable, Sendable, CustomStringConvertible {
    case bluetooth(BluetoothAddress)
    case unix(path: String)

    /// Parses an address or sensor identifier.
    public init(parsing text: String) throws(BlueZError) {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard !path.isEmpty else {
                throw BlueZError(.invalidAddress, "'unix:' needs a socket path, as in unix:/tmp/strap.sock.")
            }
            self = .unix(path: path)
            return
        }
        var rest = Substring(text)
        if rest.hasPrefix("ble:") { rest = rest.dropFirst(4) }
        var type = BluetoothAddressType.public
        if let slash = rest.firstIndex(of: "/") {
            switch rest[rest.index(after: slash)...].lowercased() {
            case "random": type = .random
            case "public": type = .public
            default:
                throw BlueZError(
                    .invalidAddress, "'\(text)' has an unknown address type; write /random or nothing (public).")
            }
            rest = rest[..<slash]
        }
        guard let address = BluetoothAddress(String(rest), type: type) else {
            throw BlueZError(
                .invalidAddress,
                "'\(text)' is not a sensor address; write AA:BB:CC:DD:EE:FF (optionally /random) or unix:PATH.")
        }
        self = .bluetooth(address)
    }

    /// The sensor identifier: `ble:AA:BB:CC:DD:EE:FF[/random]` or `unix:PATH`.
    public var identifier: String {
        switch self {
        case .bluetooth(let address): "ble:\(Self.spelling(address))"
        case .unix(let path): "unix:\(path)"
        }
    }

    /// The address as people type it: `AA:BB:CC:DD:EE:FF[/random]` or `unix:PATH`.
    public var description: String {
        switch self {
        case .bluetooth(let address): Self.spelling(address)
        case .unix(let path): "unix:\(path)"
        }
    }

    static func spelling(_ address: BluetoothAddress) -> String {
        address.type.isRandom ? "\(address)/random" : "\(address)"
    }
}
