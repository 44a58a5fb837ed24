import BluetoothLE
import Synchronization
import SystemPackage

/// Sends HCI commands over an HCI socket and waits for each one's Command Complete or Command
/// Status, however many other events come first.
///
/// libbluetooth's `hci_send_req` reads at most 10 events before giving up, so on a socket that is
/// also receiving a flood of advertising reports it times out without having seen the answer
/// (BlueZ `lib/hci.c`). This channel instead skips every event that does not answer the command
/// in flight, for as long as the time limit (measured on the injected clock) allows, and keeps
/// the advertising reports it skipped for whoever reads the socket next (``takeSkipped()``).
///
/// Works over a raw HCI socket (`hci_open_dev`, with a filter passing Command Complete, Command
/// Status and, for scanning, LE Meta) and over one end of a `socketpair`, where a scripted
/// controller reads the H4 command packets and answers with H4 event packets.
///
/// Core 5.3 Vol 4 Part E §4.4 (command flow), §7.7.14 and §7.7.15.
public final class HCICommandChannel: Sendable {
    /// The socket commands go out on and events come in on.
    public let socket: SocketDescriptor
    /// The adapter's name for messages (`hci0`).
    public let adapterName: String
    /// How long one command may take to be answered.
    public let timeLimit: Duration
    private let clock: any Clock<Duration>
    private let skipped = Mutex<[HCIEvent]>([])

    public init(socket: SocketDescriptor, adapterName: String, timeLimit: Duration = .seconds(2),
                clock: any Clock<Duration> = ContinuousClock()) {
        self.socket = socket
        self.adapterName = adapterName
        self.timeLimit = timeLimit
        self.clock = clock
    }

    /// What the controller answered.
    public enum Answer: Hashable, Sendable {
        /// Command Complete, with its return parameters (status first for nearly every command).
        case complete(returnParameters: [UInt8])
        /// Command Status (a command that completes later with its own event).
        case status(HCIStatus)

        /// The status: the first return parameter of a Command Complete, or the Command Status's.
        public var status: HCIStatus {
            switch self {
            case .complete(let parameters): parameters.first.map(HCIStatus.init(rawValue:)) ?? .unspecifiedError
            case .status(let status): status
            }
        }
    }

    /// Sends `command` and waits for its answer.
    ///
    /// - Parameter what: the action in words, for errors ("starting an LE scan").
    /// - Throws: ``BlueZError/Code/permissionDenied`` when the kernel refuses the command for want
    ///   of CAP_NET_RAW, ``BlueZError/Code/timedOut`` when no answer comes within ``timeLimit``,
    ///   ``BlueZError/Code/system`` when the socket fails.
    public func send<Command: HCICommand>(_ command: Command, _ what: String) async throws -> Answer {
        do {
            try await socket.sendMessage(command.encode())
        } catch let error as BlueZError where error.errno == .notPermitted || error.errno == .permissionDenied {
            throw BlueZError.permission(what, error.errno ?? .notPermitted)
        }
        return try await answer(to: Command.opcode, what)
    }

    /// Sends `command` and throws unless it completes with success.
    ///
    /// - Throws: as ``send(_:_:)``, and ``BlueZError/Code/commandRefused`` (via `refused`) for a
    ///   status other than success.
    @discardableResult
    public func perform<Command: HCICommand>(
        _ command: Command, _ what: String, refused: (HCIStatus) -> BlueZError
    ) async throws -> [UInt8] {
        let answer = try await send(command, what)
        guard answer.status == .success else { throw refused(answer.status) }
        if case .complete(let parameters) = answer { return parameters }
        return []
    }

    /// The events skipped while waiting, oldest first; taking them empties the list.
    public func takeSkipped() -> [HCIEvent] {
        skipped.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }

    private func answer(to opcode: HCIOpcode, _ what: String) async throws -> Answer {
        let socket = self.socket
        let result = try await withThrowingTaskGroup(of: Answer?.self) { group in
            group.addTask {
                while true {
                    let packet = try await socket.nextMessage()
                    guard let event = try? HCIEvent.decode(h4Packet: packet) else { continue }
                    switch event {
                    case .commandComplete(let complete) where complete.opcode == opcode:
                        return .complete(returnParameters: complete.returnParameters)
                    case .commandStatus(let status) where status.opcode == opcode:
                        return .status(status.status)
                    case .leAdvertisingReport, .leExtendedAdvertisingReport:
                        self.skipped.withLock { $0.append(event) }
                    default:
                        continue
                    }
                }
            }
            group.addTask {
                try await self.clock.sleep(for: self.timeLimit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        guard let result else {
            throw BlueZError(.timedOut,
                             "\(adapterName) did not answer \(what) within \(timeLimit.components.seconds) s; reset it with `sudo btmgmt --index \(adapterName.dropFirst(3)) power off` and `power on`, or unplug and replug it.")
        }
        return result
    }
}
