import BluetoothLE
import Glibc
import SystemPackage

/// One management command and its answer: sends it, then reads until the Command Complete or
/// Command Status for that command and controller arrives, however many events come first (they
/// are kept in ``skipped``), within a time limit measured on an injected clock.
///
/// BlueZ `doc/mgmt-api.txt` ("Command Complete Event", "Command Status Event").
struct ManagementExchange {
    var status: MGMTStatus
    var returnParameters: [UInt8]
    /// Packets read while waiting, oldest first.
    var skipped: [MGMTPacket]

    static func perform(
        _ command: MGMTPacket, on socket: SocketDescriptor, what: String, timeLimit: Duration,
        clock: any Clock<Duration>
    ) async throws -> ManagementExchange {
        try await send(command, on: socket)
        let answer = try await withThrowingTaskGroup(of: ManagementExchange?.self) { group in
            group.addTask {
                var skipped: [MGMTPacket] = []
                while true {
                    let bytes = try await socket.nextMessage()
                    guard let packet = try? MGMTPacket(bytes: bytes) else { continue }
                    if packet.controllerIndex == command.controllerIndex, let result = try? packet.commandResult(),
                        result.opcode == command.code
                    {
                        return ManagementExchange(
                            status: MGMTStatus(rawValue: result.status),
                            returnParameters: result.returnParameters, skipped: skipped)
                    }
                    skipped.append(packet)
                }
            }
            group.addTask {
                try await clock.sleep(for: timeLimit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        guard let answer else {
            throw BlueZError(.timedOut, "The kernel did not answer \(what) within \(timeLimit.components.seconds) s.")
        }
        return answer
    }

    /// Writes a command. A command the kernel refuses before running it (Permission Denied on a
    /// socket whose process lacks CAP_NET_ADMIN) is answered with its status event and a send that
    /// reports 0 bytes (`hci_mgmt_cmd` returns the status call's 0), so the count is not checked:
    /// the answer says what happened.
    static func send(_ command: MGMTPacket, on socket: SocketDescriptor) async throws {
        let bytes = command.encode()
        while true {
            do throws(Errno) {
                _ = try Sys.send(socket.rawValue, bytes)
                return
            } catch .resourceTemporarilyUnavailable {
                _ = try await socket.wait(for: Int16(POLLOUT))
            } catch {
                throw BlueZError(.system, "Writing to the Bluetooth management channel failed: \(error).", errno: error)
            }
        }
    }
}
