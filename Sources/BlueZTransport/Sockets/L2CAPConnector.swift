import BluetoothLE
import CBlueZ
import Glibc
import SystemPackage

/// Opens ATT bearers to LE devices: an L2CAP `SOCK_SEQPACKET` socket on the fixed ATT channel.
///
/// The sequence is BlueZ's `btgatt-client`: `socket(AF_BLUETOOTH, SOCK_SEQPACKET, BTPROTO_L2CAP)`,
/// `bind` to any adapter with CID 4, `BT_SECURITY` low (no pairing demanded), then a non-blocking
/// `connect` whose completion (`POLLOUT` and `SO_ERROR`) is raced against a timeout measured on an
/// injected clock. No capability is needed. The BlueZ address type is `BDADDR_LE_PUBLIC` (1) or
/// `BDADDR_LE_RANDOM` (2), not HCI's numbering.
///
/// Core 5.3 Vol 3 Part A §2.1 (CID 0x0004); BlueZ `lib/l2cap.h` (`sockaddr_l2`).
public enum L2CAPConnector {
    /// The ATT fixed channel.
    public static let attChannel: UInt16 = 4

    /// Connects to `address` and returns the ATT bearer.
    ///
    /// - Throws: ``BlueZError`` with ``BlueZError/Code/bluetoothUnavailable`` on a kernel without
    ///   Bluetooth, ``BlueZError/Code/busy`` when bluetoothd holds the device,
    ///   ``BlueZError/Code/timedOut`` after `timeout`, ``BlueZError/Code/connectionFailed`` otherwise.
    public static func connect(
        to address: BluetoothAddress, timeout: Duration = .seconds(10), clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> SocketBearer {
        let peer = SensorAddress.spelling(address)
        let fd = try openSocket()
        let socket: SocketDescriptor
        do { socket = try SocketDescriptor(taking: fd) } catch {
            throw BlueZError(.system, "Preparing an L2CAP socket failed: \(error).", errno: error)
        }
        let any = [UInt8](repeating: 0, count: 6)
        var local = any.withUnsafeBufferPointer { CBlueZ_sockaddr_l2($0.baseAddress, UInt8(BDADDR_LE_PUBLIC), attChannel) }
        do {
            _ = try valueOrErrno { CBlueZ_bind_l2(fd, &local) }
            _ = try valueOrErrno { CBlueZ_set_security(fd, UInt8(BT_SECURITY_LOW)) }
        } catch {
            throw BlueZError.opening("an L2CAP socket", error)
        }
        let bdaddrType = UInt8(address.type.isRandom ? BDADDR_LE_RANDOM : BDADDR_LE_PUBLIC)
        var remote = address.littleEndianBytes.withUnsafeBufferPointer {
            CBlueZ_sockaddr_l2($0.baseAddress, bdaddrType, attChannel)
        }
        do {
            _ = try valueOrErrno { CBlueZ_connect_l2(fd, &remote) }
        } catch .nowInProgress {
            try await waitForConnection(socket, peer: peer, timeout: timeout, clock: clock)
        } catch {
            throw BlueZError.connecting(to: peer, error)
        }
        return SocketBearer(socket: socket, peer: peer)
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
        _ socket: SocketDescriptor, peer: String, timeout: Duration, clock: any Clock<Duration>
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let revents = try await socket.wait(for: Int16(POLLOUT))
                if let error = Sys.socketError(socket.rawValue) { throw BlueZError.connecting(to: peer, error) }
                if revents & (Int16(POLLHUP) | Int16(POLLERR)) != 0 { throw BlueZError.connecting(to: peer, .connectionRefused) }
            }
            group.addTask {
                try await clock.sleep(for: timeout)
                throw BlueZError.connecting(to: peer, .timedOut)
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
