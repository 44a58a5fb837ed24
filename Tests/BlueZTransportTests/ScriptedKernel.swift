import BluetoothLE
import Synchronization
import Testing

@testable import BlueZTransport

/// The kernel's management channel at the far end of socket pairs, following a script: each step
/// expects one command packet on a given socket and answers with event packets, in the manner of
/// swift-nio's `EmbeddedChannel` (bytes out, bytes in) and the project's `ScriptedBearer`.
///
/// Socket 0 is the one discovery starts on; the scanner's stop opens socket 1, 2, … through
/// ``openSocket()``, as the real scanner opens a fresh management socket. ``play(_:)`` returns
/// how many steps were left unplayed, so a test can require the script to be used up.
final class ScriptedKernel: Sendable {
    /// One exchange: the command expected (bytes written out in the test) and the events sent back.
    struct Step: Sendable {
        var socket: Int
        var command: [UInt8]
        var events: [[UInt8]]
        /// Whether to answer at all (a kernel that never answers a command).
        var answers = true
    }

    let host: SocketBearer
    let kernel: SocketBearer
    private let extra = Mutex<[(host: SocketBearer, kernel: SocketBearer)]>([])
    private let extraCreated = AsyncStream<Int>.makeStream()

    init() throws {
        (host, kernel) = try SocketBearer.pair()
    }

    /// Opens the next fresh socket (1, 2, …), as the scanner's stop does.
    @Sendable func openSocket() throws -> SocketDescriptor {
        let pair = try SocketBearer.pair()
        let index = extra.withLock { extra in
            extra.append(pair)
            return extra.count
        }
        extraCreated.continuation.yield(index)
        return pair.0.socket
    }

    /// The kernel's end of socket `index`, waiting for the scanner to open it.
    private func end(_ index: Int) async -> SocketBearer? {
        if index == 0 { return kernel }
        if let end = extra.withLock({ $0.count >= index ? $0[index - 1].kernel : nil }) { return end }
        for await created in extraCreated.stream where created >= index {
            return extra.withLock { $0[index - 1].kernel }
        }
        return nil
    }

    /// Sends events to the host on socket `index` without waiting for a command.
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
        bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: " ")
    }

    // MARK: - Packets, written out byte by byte (BlueZ doc/mgmt-api.txt)

    /// Start Discovery (0x0023) on controller 0 for LE public and random (0x06):
    /// `23 00 · 00 00 · 01 00 · 06`.
    static let startDiscovery: [UInt8] = [0x23, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06]
    /// Stop Discovery (0x0024) on controller 0 for the same types: `24 00 · 00 00 · 01 00 · 06`.
    static let stopDiscovery: [UInt8] = [0x24, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06]

    /// Command Complete (event 0x0001) on controller 0 for `opcode` with `status` and the address
    /// types 0x06 as return parameter: `01 00 · 00 00 · 04 00 · opcode · status · 06`.
    static func complete(_ opcode: UInt16, status: UInt8 = 0x00) -> [UInt8] {
        [0x01, 0x00, 0x00, 0x00, 0x04, 0x00, UInt8(opcode & 0xFF), UInt8(opcode >> 8), status, 0x06]
    }

    /// Discovering (event 0x0013) on controller 0: `13 00 · 00 00 · 02 00 · 06 · on`.
    static func discovering(_ on: Bool) -> [UInt8] {
        [0x13, 0x00, 0x00, 0x00, 0x02, 0x00, 0x06, on ? 0x01 : 0x00]
    }

    /// Index Removed (event 0x0005) for controller 0: `05 00 · 00 00 · 00 00`.
    static let indexRemoved: [UInt8] = [0x05, 0x00, 0x00, 0x00, 0x00, 0x00]

    /// Device Found (event 0x0012) on controller 0: `12 00 · 00 00 · length · address (least
    /// significant first) · type (1 public, 2 random) · RSSI · flags (4) · EIR length (2) · EIR`.
    static func deviceFound(_ address: [UInt8], random: Bool, rssi: Int8, eir: [UInt8]) -> [UInt8] {
        let length = 14 + eir.count
        return [0x12, 0x00, 0x00, 0x00, UInt8(length), 0x00] + address.reversed() + [
            random ? 0x02 : 0x01, UInt8(bitPattern: rssi),
        ]
            + [0x00, 0x00, 0x00, 0x00, UInt8(eir.count), 0x00] + eir
    }
}
