import BlueZTransport
import FitnessSensors
import Foundation
import Synchronization

/// Collects a sensor's events as an async sequence, so a test awaits each one instead of sleeping.
final class EventRecorder: Sendable {
    let events: AsyncStream<SensorEvent>
    private let sink: AsyncStream<SensorEvent>.Continuation
    private let log = Mutex<[SensorEvent]>([])

    init() {
        (events, sink) = AsyncStream.makeStream(of: SensorEvent.self)
    }

    var handler: @Sendable (SensorEvent) -> Void {
        { [self] event in
            log.withLock { $0.append(event) }
            sink.yield(event)
        }
    }

    /// Every event delivered so far.
    var delivered: [Seen] { log.withLock { $0.map(Seen.init) } }

    func finish() { sink.finish() }
}

/// Wall time for tests: a fixed start that moves one millisecond per reading of it.
final class TestWallClock: Sendable {
    private let ticks = Mutex(0)
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    var now: @Sendable () -> Date {
        { [self] in
            start.addingTimeInterval(
                Double(
                    ticks.withLock {
                        $0 += 1
                        return $0
                    }) / 1000)
        }
    }
}

/// What an event is, without its timestamp, for exact comparisons.
enum Seen: Equatable, CustomStringConvertible {
    case connecting, connected, disconnected(String?)
    case reading(SensorReadingValue)

    init(_ event: SensorEvent) {
        switch event.kind {
        case .connection(.connecting): self = .connecting
        case .connection(.connected): self = .connected
        case .connection(.disconnected(let reason)): self = .disconnected(reason)
        case .reading(let value): self = .reading(value)
        }
    }

    var description: String {
        switch self {
        case .connecting: "connecting"
        case .connected: "connected"
        case .disconnected(let reason): "disconnected(\(reason ?? "nil"))"
        case .reading(let value): "\(value)"
        }
    }
}

extension AsyncStream<SensorEvent>.Iterator {
    /// The next event, simplified.
    mutating func seen() async -> Seen? {
        await next().map(Seen.init)
    }
}

/// A connector for tests: each connection is a fresh `socketpair`, whose far end a simulated
/// peripheral serves. The peripheral's ends are kept so a test can drop one.
final class SocketPairLink: Sendable {
    let peripheral: SimulatedPeripheral
    private let peerEnds = Mutex<[SocketBearer]>([])

    init(_ peripheral: SimulatedPeripheral) { self.peripheral = peripheral }

    var connect: BLESensor.Connector {
        { [self] in
            let (central, far) = try SocketBearer.pair()
            peerEnds.withLock { $0.append(far) }
            Task { await peripheral.serve(far) }
            return central
        }
    }

    var connectionCount: Int { peerEnds.withLock { $0.count } }

    /// Sends raw bytes from the peripheral's end of the latest link, bypassing its GATT server.
    func sendRaw(_ bytes: [UInt8]) async throws {
        let far = peerEnds.withLock { $0.last }
        try await far?.send(bytes)
    }

    /// Closes the peripheral's end of the latest link, as a strap out of range does.
    func dropLatest() {
        peerEnds.withLock { $0.last?.close() }
    }
}
