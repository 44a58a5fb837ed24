import BluetoothLE
import CBlueZ
import Glibc
import SystemPackage

/// Opens ATT bearers to LE devices: an L2CAP `SOCK_SEQPACKET` socket on the fixed ATT channel.
///
/// The sequence is BlueZ's `btgatt-client`: `socket(AF_BLUETOOTH, SOCK_SEQPACKET, BTPROTO_L2CAP)`,
/// `bind` to the chosen adapter's address with CID 4, `BT_SECURITY` low (no pairing demanded),
/// then a non-blocking `connect` whose completion (`POLLOUT` and `SO_ERROR`) is raced against a
/// timeout measured on an injected clock. No capability is needed. The BlueZ address type is
/// `BDADDR_LE_PUBLIC` (1) or `BDADDR_LE_RANDOM` (2), not HCI's numbering.
///
/// The adapter is the one named, else the first that is up and is not the peer itself (the
/// kernel's own `hci_get_route` rule). Binding to its identity address and type (public, or static
/// random: ``AdapterIdentity``), not `BDADDR_ANY`, is what makes the choice stick. Attempts on one
/// adapter pass through ``ConnectionGate`` one at a time, since the kernel refuses a second
/// pending LE connection with EBUSY.
///
/// The bearer can raise its security (``SocketBearer/securityUpgrade``): `BT_SECURITY` medium,
/// then a wait for the socket to become writable again, as the kernel holds an LE ATT socket in
/// `BT_CONFIG` while it encrypts.
///
/// Core 5.3 Vol 3 Part A §2.1 (CID 0x0004); BlueZ `lib/l2cap.h` (`sockaddr_l2`); Linux
/// `net/bluetooth/l2cap_sock.c` (`BT_SECURITY` on the ATT channel).
public enum L2CAPConnector {
    /// The ATT fixed channel.
    public static let attChannel: UInt16 = 4

    /// Connects to `address` and returns the ATT bearer.
    ///
    /// - Parameter adapter: `hciN` to connect through; `nil` chooses as described above.
    /// - Throws: ``BlueZError`` with ``BlueZError/Code/bluetoothUnavailable`` on a kernel without
    ///   Bluetooth, ``BlueZError/Code/adapterDown`` when the adapter is down or has LE off,
    ///   ``BlueZError/Code/busy`` on EBUSY, ``BlueZError/Code/timedOut`` after `timeout`,
    ///   ``BlueZError/Code/connectionFailed`` otherwise.
    public static func connect(
        to address: BluetoothAddress, adapter: String? = nil, timeout: Duration = .seconds(10),
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> SocketBearer {
        let peer = SensorAddress.spelling(address)
        let fd = try openSocket()
        let socket: SocketDescriptor
        do { socket = try SocketDescriptor(taking: fd) } catch {
            throw BlueZError(.system, "Preparing an L2CAP socket failed: \(error).", errno: error)
        }
        let chosen = try AdapterSelection.choose(adapter, avoiding: address)
        let identity = AdapterIdentity.read(chosen)
        var local = identity.littleEndianBytes.withUnsafeBufferPointer {
            CBlueZ_sockaddr_l2($0.baseAddress, identity.bdaddrType, attChannel)
        }
        do {
            _ = try valueOrErrno { CBlueZ_bind_l2(fd, &local) }
            _ = try valueOrErrno { CBlueZ_set_security(fd, UInt8(BT_SECURITY_LOW)) }
        } catch {
            throw BlueZError.opening("an L2CAP socket on \(chosen.name)", error)
        }
        let bdaddrType = UInt8(address.type.isRandom ? BDADDR_LE_RANDOM : BDADDR_LE_PUBLIC)
        var remote = address.littleEndianBytes.withUnsafeBufferPointer {
            CBlueZ_sockaddr_l2($0.baseAddress, bdaddrType, attChannel)
        }
        try await ConnectionGate.shared.withPermit(for: chosen.name) {
            let started = Result { () throws(Errno) in try valueOrErrno { CBlueZ_connect_l2(fd, &remote) } }
            switch started {
            case .success:
                return
            case .failure(.nowInProgress):
                try await waitForConnection(socket, peer: peer, adapter: chosen.name, timeout: timeout, clock: clock)
            case .failure(let error):
                throw BlueZError.connecting(to: peer, error, adapter: chosen.name, immediate: true)
            }
        }
        return SocketBearer(socket: socket, peer: peer) {
            try await raiseSecurity(socket, peer: peer, timeout: .seconds(30), clock: clock)
        }
    }

    /// Opens the L2CAP socket; on a kernel without Bluetooth this is where EAFNOSUPPORT appears.
    static func openSocket() throws(BlueZError) -> Int32 {
        do {
            return try Sys.socket(AF_BLUETOOTH, Sys.seqPacket, BTPROTO_L2CAP)
        } catch {
            throw BlueZError.opening("an L2CAP socket", error)
        }
    }

    private static func waitForConnection(
        _ socket: SocketDescriptor, peer: String, adapter: String, timeout: Duration, clock: any Clock<Duration>
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let revents = try await socket.wait(for: Int16(POLLOUT))
                if let error = Sys.socketError(socket.rawValue) {
                    throw BlueZError.connecting(to: peer, error, adapter: adapter)
                }
                if revents & (Int16(POLLHUP) | Int16(POLLERR)) != 0 {
                    throw BlueZError.connecting(to: peer, .connectionRefused, adapter: adapter)
                }
            }
            group.addTask {
                try await clock.sleep(for: timeout)
                throw BlueZError.connecting(to: peer, .timedOut, adapter: adapter)
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// `BT_SECURITY` medium (encryption; the kernel pairs if there is no key), then waits until
    /// the kernel lets the socket out of `BT_CONFIG` (writable again) or reports the failure.
    private static func raiseSecurity(
        _ socket: SocketDescriptor, peer: String, timeout: Duration, clock: any Clock<Duration>
    ) async throws {
        do {
            _ = try valueOrErrno { CBlueZ_set_security(socket.rawValue, UInt8(BT_SECURITY_MEDIUM)) }
        } catch {
            throw BlueZError(
                .connectionFailed, "\(peer) could not be asked to encrypt the link (\(error)).", errno: error)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let revents = try await socket.wait(for: Int16(POLLOUT))
                if let error = Sys.socketError(socket.rawValue) { throw BlueZError.connecting(to: peer, error) }
                if revents & (Int16(POLLHUP) | Int16(POLLERR)) != 0 { throw BlueZError.linkLost(nil) }
            }
            group.addTask {
                try await clock.sleep(for: timeout)
                throw BlueZError(
                    .timedOut,
                    "\(peer) did not finish encrypting the link in time; remove its bond with `bluetoothctl remove \(BlueZError.bluetoothctlAddress(peer))` and try again."
                )
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
