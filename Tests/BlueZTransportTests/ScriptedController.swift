import Synchronization
import BluetoothLE
@testable import BlueZTransport
import Testing

/// An HCI controller at the far end of socket pairs, following a script: each step expects one
/// H4 command packet on a given socket and answers with H4 event packets, in the manner of
/// swift-nio's `EmbeddedChannel` (bytes out, bytes in) and the project's `ScriptedBearer`.
///
/// Socket 0 is the scan socket; a scanner's stop opens socket 1, 2, … through ``openChannel()``,
/// as the real scanner opens a fresh HCI socket. `verify()` fails the test if a step was not used.
final class ScriptedController: Sendable {
    /// One exchange: the command expected (H4 bytes, written out in the test) and the events sent back.
    struct Step: Sendable {
        var socket: Int
        var command: [UInt8]
        var events: [[UInt8]]
        /// Whether to answer at all (a controller that never answers a command).
        var answers = true
    }

    let host: SocketBearer
    let controller: SocketBearer
    private let extra = Mutex<[(host: SocketBearer, controller: SocketBearer)]>([])
    private let extraCreated = AsyncStream<Int>.makeStream()
    private let clock: any Clock<Duration>

    init(clock: any Clock<Duration>) throws {
        (host, controller) = try SocketBearer.pair()
        self.clock = clock
    }

    /// The channel the scanner starts on (socket 0).
    var channel: HCICommandChannel {
        HCICommandChannel(socket: host.socket, adapterName: "hci0", clock: clock)
    }

    /// Opens the next fresh socket (1, 2, …), as the scanner's stop does.
    @Sendable func openChannel() throws -> HCICommandChannel {
        let pair = try SocketBearer.pair()
        let index = extra.withLock { extra in
            extra.append(pair)
            return extra.count
        }
        extraCreated.continuation.yield(index)
        return HCICommandChannel(socket: pair.0.socket, adapterName: "hci0", clock: clock)
    }

    /// The controller's end of socket `index`, waiting for the scanner to open it.
    private func end(_ index: Int) async -> SocketBearer? {
        if index == 0 { return controller }
        if let end = extra.withLock({ $0.count >= index ? $0[index - 1].controller : nil }) { return end }
        for await created in extraCreated.stream where created >= index {
            return extra.withLock { $0[index - 1].controller }
        }
        return nil
    }

    /// Sends events to the host on socket `index` without waiting for a command (reports).
    func send(_ events: [[UInt8]], on index: Int = 0) async throws {
        guard let end = await end(index) else { return }
        for event in events { try await end.send(event) }
    }

    /// Plays the script; returns the steps left unplayed (none when the script was used up).
    func play(_ script: [Step]) async throws -> Int {
        for (number, step) in script.enumerated() {
            guard let end = await end(step.socket) else { return script.count - number }
            let command = try await end.receive()
            #expect(command == step.command, "step \(number): expected \(hex(step.command)), got \(hex(command))")
            guard step.answers else { continue }
            for event in step.events { try await end.send(event) }
        }
        return 0
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16, uppercase: true).count == 1 ? "0" + String($0, radix: 16, uppercase: true) : String($0, radix: 16, uppercase: true) }.joined(separator: " ")
    }

    // MARK: - Events, written out byte by byte

    /// Command Complete (`04 0E len · 01 · opcode · return parameters`), Core 5.3 Vol 4 Part E §7.7.14.
    static func complete(_ opcode: UInt16, _ returnParameters: [UInt8]) -> [UInt8] {
        [0x04, 0x0E, UInt8(3 + returnParameters.count), 0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + returnParameters
    }

    /// The Read Local Supported Commands answer with octet 26 = 0x0C (LE Set Scan Parameters and
    /// Enable, bits 2 and 3) and octet 37 as given (0x60: extended scan parameters and enable,
    /// bits 5 and 6), every other octet zero.
    static func supportedCommands(octet37: UInt8) -> [UInt8] {
        var octets = [UInt8](repeating: 0, count: 64)
        octets[26] = 0x0C
        octets[37] = octet37
        return complete(0x1002, [0x00] + octets)
    }
}

