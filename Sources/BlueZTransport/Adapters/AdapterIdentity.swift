import BluetoothLE
import CBlueZ
import Foundation

/// The local address an LE L2CAP socket is bound to: the adapter's identity address and its type,
/// or `BDADDR_ANY` when that identity cannot be read.
///
/// Linux routes an LE connection by the bound address (`hci_get_route` in
/// `net/bluetooth/hci_core.c`): with an address, to the adapter whose *identity* has that value
/// and that type (`hci_copy_identity_address`: the public address, or the static random address
/// when the controller has no public one or runs LE only with one set); with `BDADDR_ANY`, to the
/// first adapter up. An adapter whose identity is its static address is missed when bound as public.
///
/// The management channel's Read Controller Information gives the public address and, in
/// Current_Settings bit 15, whether the static address is the identity, but not the static
/// address itself; debugfs (`/sys/kernel/debug/bluetooth/hciN/static_address`) has it, readable
/// by root only. Without it the socket is bound to `BDADDR_ANY`: the kernel then chooses, which is
/// this adapter when it is the only one up. Nothing here waits: the address an adapter that is up
/// reports is final (the kernel reads it during setup, before it sets `HCI_UP`).
public struct AdapterIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The address bound; `nil` for `BDADDR_ANY`.
    public var address: BluetoothAddress?

    public init(address: BluetoothAddress?) {
        self.address = address
    }

    /// Whether the kernel chooses the adapter (`BDADDR_ANY`).
    public var isAny: Bool { address == nil }

    /// `sockaddr_l2.l2_bdaddr_type`: `BDADDR_LE_RANDOM` (2) for a static identity, else
    /// `BDADDR_LE_PUBLIC` (1), which is also what BlueZ's tools bind `BDADDR_ANY` with.
    public var bdaddrType: UInt8 { address?.type.isRandom == true ? UInt8(BDADDR_LE_RANDOM) : UInt8(BDADDR_LE_PUBLIC) }

    /// The 6 bytes for `sockaddr_l2`, least significant first (all zero for `BDADDR_ANY`).
    public var littleEndianBytes: [UInt8] { address?.littleEndianBytes ?? [0, 0, 0, 0, 0, 0] }

    public var description: String {
        guard let address else { return "any (the kernel chooses)" }
        return address.type.isRandom ? "\(address) (static random)" : "\(address) (public)"
    }

    /// The identity to bind, from what the kernel says about the adapter.
    ///
    /// - Parameters:
    ///   - information: Read Controller Information, `nil` when the management channel did not answer.
    ///   - deviceAddress: the address `HCIGETDEVINFO` reports (the public one), `nil` when all zeros.
    ///   - staticAddress: the static random address, when it could be read.
    public static func resolve(
        information: MGMTControllerInformation?, deviceAddress: BluetoothAddress?,
        staticAddress: BluetoothAddress?
    ) -> AdapterIdentity {
        let usesStatic = information?.identityIsStaticAddress ?? (deviceAddress == nil)
        if usesStatic {
            guard let staticAddress, staticAddress.rawValue != 0 else { return AdapterIdentity(address: nil) }
            return AdapterIdentity(address: BluetoothAddress(rawValue: staticAddress.rawValue, type: .random))
        }
        let publicAddress = information?.publicAddress ?? deviceAddress
        return AdapterIdentity(address: publicAddress.map { BluetoothAddress(rawValue: $0.rawValue, type: .public) })
    }

    /// Reads the identity of adapter `id` (management channel, then debugfs for a static one).
    public static func read(_ status: AdapterStatus) -> AdapterIdentity {
        let information = try? ManagementChannel.controllerInformation(index: UInt16(status.id))
        let needsStatic = information?.identityIsStaticAddress ?? (status.address == nil)
        return resolve(
            information: information, deviceAddress: status.address,
            staticAddress: needsStatic ? staticAddress(of: status.id) : nil)
    }

    /// The static address from debugfs (`%pMR`: `c0:11:22:33:44:55`), when this process may read it.
    static func staticAddress(of id: Int32, root: String = "/sys/kernel/debug/bluetooth") -> BluetoothAddress? {
        guard let text = try? String(contentsOfFile: "\(root)/hci\(id)/static_address", encoding: .utf8) else {
            return nil
        }
        return BluetoothAddress(text.trimmingCharacters(in: .whitespacesAndNewlines), type: .random)
    }
}
