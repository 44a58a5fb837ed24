import SystemPackage
@_exported import UnixSockets

/// Why a Bluetooth operation failed: ``SocketError`` (the socket layer's error, in `UnixSockets`), with the
/// sentences that interpret a Bluetooth socket's errno below.
public typealias BlueZError = SocketError

extension SocketError.Code {
    /// The kernel has no Bluetooth (`socket(AF_BLUETOOTH)` fails with EAFNOSUPPORT).
    public static let bluetoothUnavailable = Self(rawValue: "bluetoothUnavailable")
    /// No Bluetooth adapter is present or up.
    public static let noAdapter = Self(rawValue: "noAdapter")
    /// An adapter exists but is down, or has LE disabled on the host side.
    public static let adapterDown = Self(rawValue: "adapterDown")
    /// An address or sensor identifier could not be parsed.
    public static let invalidAddress = Self(rawValue: "invalidAddress")
    /// The controller refused a command (HCI status other than success).
    public static let commandRefused = Self(rawValue: "commandRefused")
}

extension SocketError {
    /// The error for a failed `socket(AF_BLUETOOTH, …)` or `hci_open_dev`.
    static func opening(_ what: String, _ errno: Errno) -> BlueZError {
        switch errno {
        case .addressFamilyNotSupported, .protocolNotSupported:
            BlueZError(
                .bluetoothUnavailable,
                "This kernel has no Bluetooth support (opening \(what) failed: \(errno)); load it with `sudo modprobe bluetooth` or use a kernel built with CONFIG_BT.",
                errno: errno)
        case .operationNotSupportedByDevice, .noSuchFileOrDirectory:
            BlueZError(
                .noAdapter,
                "No Bluetooth adapter is available; plug one in or unblock it with `rfkill unblock bluetooth`, then check `workout adapters`.",
                errno: errno)
        case .notPermitted, .permissionDenied:
            permission(what, errno)
        default:
            BlueZError(.system, "Opening \(what) failed: \(errno).", errno: errno)
        }
    }

    /// The error for an adapter that is down or has LE off (Linux `hci_get_route` skips it; an
    /// L2CAP connect through it fails with EHOSTUNREACH, or ECONNREFUSED when LE is off).
    static func adapterDown(_ name: String, _ errno: Errno? = nil) -> BlueZError {
        let index = name.hasPrefix("hci") ? String(name.dropFirst(3)) : "0"
        return BlueZError(
            .adapterDown,
            "\(name) is down, or LE is off: run `bluetoothctl power on` (or `sudo btmgmt --index \(index) power on` and `sudo btmgmt --index \(index) le on`).",
            errno: errno)
    }

    /// The error for an operation the kernel refused for want of privilege. Of the Bluetooth
    /// sockets this package opens, only the management channel's Start Discovery (scanning
    /// without bluetoothd) needs one: CAP_NET_ADMIN.
    static func permission(_ what: String, _ errno: Errno) -> BlueZError {
        BlueZError(
            .permissionDenied,
            "\(what.prefix(1).uppercased() + what.dropFirst()) was refused (\(errno)): the kernel allows it to root or to a program holding CAP_NET_ADMIN; run as root, or grant it with `sudo setcap cap_net_admin+eip \(CommandLine.arguments.first ?? "workout")`.",
            errno: errno)
    }

    /// The address as `bluetoothctl` takes it: `AA:BB:CC:DD:EE:FF`, without the `/random` that
    /// `workout` writes after a random address (bluetoothctl looks devices up by address alone).
    static func bluetoothctlAddress(_ peer: String) -> String {
        guard let slash = peer.lastIndex(of: "/"), !peer.hasPrefix("unix:") else { return peer }
        return String(peer[..<slash])
    }

    /// The error for a failed L2CAP LE connection to `peer` through `adapter`.
    ///
    /// - Parameter immediate: whether `connect` itself failed, before any radio traffic. Linux
    ///   answers at once with EHOSTUNREACH when no adapter is up with LE enabled
    ///   (`hci_get_route` in `l2cap_chan_connect`) and with ECONNREFUSED when the adapter is
    ///   LE-capable but LE is off on the host side (`hci_connect_le`); ECONNREFUSED later, from
    ///   `SO_ERROR`, is the peer's or the controller's refusal.
    static func connecting(
        to peer: String, _ errno: Errno, adapter: String? = nil, immediate: Bool = false
    ) -> BlueZError {
        let plain = bluetoothctlAddress(peer)
        return switch errno {
        case .resourceBusy:
            BlueZError(
                .busy,
                "\(peer) is busy (\(errno)): another program holds a connection to it (bluetoothd, when the sensor is paired or trusted there: run `bluetoothctl disconnect \(plain)`, or `bluetoothctl remove \(plain)` so it stops auto-connecting), or another LE connection attempt on \(adapter ?? "the adapter") is still pending; try again when it ends.",
                errno: errno)
        case .noRouteToHost:
            adapterDown(adapter ?? "hci0", errno)
        case .connectionRefused where immediate:
            adapterDown(adapter ?? "hci0", errno)
        case .connectionRefused, .hostIsDown:
            BlueZError(
                .connectionFailed,
                "\(peer) refused the connection (\(errno)); check that it is awake and advertising, and that its address type (public or /random) is right.",
                errno: errno)
        case .timedOut:
            BlueZError(
                .timedOut,
                "\(peer) did not answer in time; wake the sensor (wet a strap's contacts, spin the cranks) and try again.",
                errno: errno)
        case .permissionDenied:
            BlueZError(
                .connectionFailed,
                "\(peer) refused pairing or encryption (\(errno)); remove its bond with `bluetoothctl remove \(plain)` and try again.",
                errno: errno)
        case .noSuchFileOrDirectory:
            BlueZError(
                .connectionFailed, "Nothing listens at \(peer); start one with `workout peripheral --listen PATH`.",
                errno: errno)
        case .addressFamilyNotSupported, .protocolNotSupported, .notPermitted, .operationNotSupportedByDevice:
            opening("an L2CAP socket", errno)
        default:
            BlueZError(.connectionFailed, "Connecting to \(peer) failed: \(errno).", errno: errno)
        }
    }
}
