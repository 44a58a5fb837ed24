import BluetoothLE
import CBlueZ
import Foundation
import Glibc
import SystemPackage

/// An adapter's state as the kernel reports it through `HCIGETDEVINFO` (no privilege needed).
public struct AdapterStatus: Hashable, Sendable {
    /// libbluetooth's device id, the `N` of `hciN`.
    public var id: Int32
    /// Its public address; `nil` when it reports 00:00:00:00:00:00: a controller with no public
    /// address (LE only; its identity is a static random address, ``AdapterIdentity``), or one
    /// still in setup (then it is not up either).
    public var address: BluetoothAddress?
    /// Whether the adapter is up (`HCI_UP`). Without bluetoothd the kernel powers an adapter off
    /// again after setup, and `hci_get_route` skips adapters that are down.
    public var isUp: Bool

    public init(id: Int32, address: BluetoothAddress?, isUp: Bool) {
        self.id = id
        self.address = address
        self.isUp = isUp
    }

    public var name: String { "hci\(id)" }

    /// `HCI_UP`, bit 0 of `hci_dev_info.flags` (BlueZ `lib/hci.h`, the kernel's `enum { HCI_UP, … }`).
    static let upFlag: UInt32 = 1 << 0

    /// Interprets what `HCIGETDEVINFO` returned: an all-zero address is unknown, not an address.
    static func from(id: Int32, littleEndianAddress bytes: [UInt8], flags: UInt32) -> AdapterStatus {
        let address = bytes.allSatisfy { $0 == 0 } ? nil : BluetoothAddress(bytes: Array(bytes.reversed()))
        return AdapterStatus(id: id, address: address, isUp: flags & upFlag != 0)
    }
}

/// Which adapter an operation uses, and what it is like, asked of the kernel the way BlueZ's
/// tools ask (`hci_get_route`, `hci_devinfo`).
public enum AdapterSelection {
    /// Reads an adapter's state; `nil` when the kernel has no adapter with that id (or no Bluetooth).
    public static func status(of id: Int32) -> AdapterStatus? {
        var bytes = [UInt8](repeating: 0, count: 6)
        var flags: UInt32 = 0
        guard CBlueZ_adapter_address(id, &bytes, &flags) == 0 else { return nil }
        return AdapterStatus.from(id: id, littleEndianAddress: bytes, flags: flags)
    }

    /// Parses `hci1` or `1`.
    public static func deviceID(_ name: String) throws(BlueZError) -> Int32 {
        let digits = name.hasPrefix("hci") ? name.dropFirst(3) : Substring(name)
        guard let id = Int32(digits), id >= 0 else {
            throw BlueZError(
                .invalidAddress,
                "'\(name)' is not an adapter name; write hci0, hci1, … (`workout adapters` lists them).")
        }
        return id
    }

    /// The environment variable that names the adapter when a caller names none: `hci1`.
    public static let environmentVariable = "OPENHEALTHKIT_ADAPTER"

    /// The adapter `$OPENHEALTHKIT_ADAPTER` names, if set and not empty.
    public static func adapterFromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        environment[environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The adapter to use: the one named, else the one `$OPENHEALTHKIT_ADAPTER` names, else the
    /// first that is up (and, when connecting, whose address is not the peer's: the kernel's and
    /// libbluetooth's `hci_get_route` rule).
    ///
    /// The environment variable is how a program chooses the adapter for every connection at once,
    /// paired sensors that a live data source connects included; Linux itself has no such setting.
    ///
    /// - Throws: ``BlueZError/Code/noAdapter`` when none exists, ``BlueZError/Code/adapterDown``
    ///   when the one named (or every one) is down.
    public static func choose(
        _ name: String?, avoiding peer: BluetoothAddress? = nil
    ) throws(BlueZError) -> AdapterStatus {
        if let name = name ?? adapterFromEnvironment() {
            let id = try deviceID(name)
            guard let status = status(of: id) else {
                try requireKernelSupport()
                throw BlueZError(.noAdapter, "There is no adapter hci\(id); `workout adapters` lists the ones present.")
            }
            guard status.isUp else { throw BlueZError.adapterDown("hci\(id)") }
            return status
        }
        Glibc.errno = 0
        let id =
            peer.map { peer in peer.littleEndianBytes.withUnsafeBufferPointer { CBlueZ_route_avoiding($0.baseAddress) }
            }
            ?? hci_get_route(nil)
        let routeError = Errno(rawValue: Glibc.errno)
        if id >= 0, let status = status(of: id), status.isUp { return status }
        if routeError == .addressFamilyNotSupported || routeError == .protocolNotSupported {
            throw BlueZError.opening("the Bluetooth adapter", routeError)
        }
        if let down = (try? BluetoothAdapters.list())?.compactMap(\.deviceID).first {
            throw BlueZError.adapterDown("hci\(down)")
        }
        throw BlueZError.opening("the Bluetooth adapter", .noSuchFileOrDirectory)
    }

    /// Throws ``BlueZError/Code/bluetoothUnavailable`` when the kernel has no Bluetooth sockets.
    static func requireKernelSupport() throws(BlueZError) {
        do {
            Sys.close(try Sys.socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue), BTPROTO_HCI))
        } catch .addressFamilyNotSupported {
            throw BlueZError.opening("the Bluetooth adapter", .addressFamilyNotSupported)
        } catch {
            return  // other failures say nothing about the kernel's support
        }
    }
}
