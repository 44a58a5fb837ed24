import BluetoothLE
import CBlueZ
import Glibc
import SystemPackage

/// BlueZ's management channel: Read Controller Information, which tells whether an adapter is
/// powered, has LE enabled and uses a static address as the kernel sees it (`hci_dev_info` has
/// none of these), and the socket ``ManagementScanner`` discovers through.
///
/// An unprivileged socket may send Read Controller Information (the kernel lists it among the
/// untrusted-safe commands in `net/bluetooth/mgmt.c`), so `workout doctor` needs no capability for
/// it. Start Discovery is not among them: on a socket whose process lacks CAP_NET_ADMIN the kernel
/// answers it with Permission Denied (0x14), and sends such a socket no Device Found events.
///
/// BlueZ `doc/mgmt-api.txt`.
public enum ManagementChannel {
    /// Opens a non-blocking management socket (`HCI_CHANNEL_CONTROL`).
    ///
    /// - Throws: ``BlueZError`` when the kernel has no Bluetooth, or the socket cannot be prepared.
    public static func openSocket() throws -> SocketDescriptor {
        let fd: Int32
        do { fd = try valueOrErrno { CBlueZ_open_management() } } catch {
            throw BlueZError.opening("the Bluetooth management channel", error)
        }
        do { return try SocketDescriptor(taking: fd) } catch {
            throw BlueZError(.system, "Preparing the management channel failed: \(error).", errno: error)
        }
    }

    /// Reads an adapter's information; waits at most `timeoutMilliseconds` for the answer.
    ///
    /// - Throws: ``BlueZError`` when the channel cannot be opened (no Bluetooth in the kernel),
    ///   the kernel refuses the command, or no answer comes.
    public static func controllerInformation(
        index: UInt16, timeoutMilliseconds: Int32 = 1000
    ) throws -> MGMTControllerInformation {
        let socket = try openSocket()
        let fd = socket.rawValue
        let request = MGMTPacket(code: MGMTPacket.readControllerInformation, controllerIndex: index)
        do { _ = try Sys.send(fd, request.encode()) } catch {
            throw BlueZError(.system, "Asking the kernel about hci\(index) failed: \(error).", errno: error)
        }
        while true {
            guard case .ready = try socket.poll(Int16(POLLIN), timeoutMilliseconds: timeoutMilliseconds) else {
                throw BlueZError(.timedOut, "The kernel did not answer a question about hci\(index).")
            }
            guard let bytes = try socket.receiveMessage(capacity: 1024), !bytes.isEmpty else { continue }
            guard let packet = try? MGMTPacket(bytes: bytes), packet.controllerIndex == index,
                let result = try? packet.commandResult(), result.opcode == MGMTPacket.readControllerInformation
            else { continue }
            guard result.status == 0 else {
                throw BlueZError(
                    .noAdapter,
                    "The kernel has no adapter hci\(index) (management status 0x\(String(result.status, radix: 16))).")
            }
            do { return try MGMTControllerInformation(returnParameters: result.returnParameters) } catch {
                throw BlueZError(.system, "The kernel's answer about hci\(index) was malformed: \(error).")
            }
        }
    }

    /// The peer addresses an adapter is connected to (`HCIGETCONNLIST`), least significant byte
    /// last as printed; empty when none or when the kernel cannot say.
    public static func connections(of id: Int32) -> [BluetoothAddress] {
        var bytes = [UInt8](repeating: 0, count: 6 * 20)
        let count = CBlueZ_connections(id, &bytes, 20)
        guard count > 0 else { return [] }
        return (0 ..< Int(count)).compactMap { BluetoothAddress(bytes: Array(bytes[6 * $0 ..< 6 * $0 + 6].reversed())) }
    }
}
