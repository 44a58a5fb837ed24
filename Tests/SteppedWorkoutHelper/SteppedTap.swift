import FitnessSensors
import Foundation
import OpenHealthKitTesting

/// What a recording on ``SteppedTime`` knows about its sensors, heard through their tap: the measurement
/// notifications received, the links dropped, and which sensors are in the middle of connecting. It passes
/// everything on to `next` (the `--save-fixture` recorder), so it changes nothing the sensors do.
final class SteppedTap: NotificationTap, @unchecked Sendable {
    struct Counts {
        var notifications = 0
        var drops = 0
        var connecting: Set<String> = []
    }

    /// Every measurement (heart rate, cycling power, CSC, RSC, the fitness machines' data) and Fitness Machine Status:
    /// what peripherals notify (values read at connection, such as the battery level, are not notifications and are
    /// not counted; nor are the control point's indications, which answer the recording's own requests).
    static let measurements: Set<UInt16> = Set(FitnessProfiles.measurementCharacteristics + [0x2ADA])

    let next: (any NotificationTap)?
    private let lock = NSLock()
    private var counts = Counts()
    private var waiters: [(holds: (Counts) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

    init(next: (any NotificationTap)?) {
        self.next = next
    }

    func sensor(_ identifier: String, received bytes: [UInt8], characteristic: UInt16, at date: Date) {
        next?.sensor(identifier, received: bytes, characteristic: characteristic, at: date)
        if Self.measurements.contains(characteristic) { change { $0.notifications += 1 } }
    }

    func sensor(_ identifier: String, changedTo state: SensorConnectionState, at date: Date) {
        next?.sensor(identifier, changedTo: state, at: date)
        change { counts in
            switch state {
            case .connecting: counts.connecting.insert(identifier)
            case .connected: counts.connecting.remove(identifier)
            case .disconnected:
                counts.connecting.remove(identifier)
                counts.drops += 1
            }
        }
    }

    /// Suspends until the counts satisfy `holds`.
    func wait(until holds: @escaping (Counts) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = lock.withLock {
                if holds(counts) { return true }
                waiters.append((holds, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    var current: Counts { lock.withLock { counts } }

    private func change(_ update: (inout Counts) -> Void) {
        let ready: [CheckedContinuation<Void, Never>] = lock.withLock {
            update(&counts)
            let ready = waiters.filter { $0.holds(counts) }.map(\.continuation)
            waiters.removeAll { $0.holds(counts) }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}

extension SteppedTime {
    func recordingTap(next: (any NotificationTap)?) -> (any NotificationTap)? {
        let tap = SteppedTap(next: next)
        lock.withLock { sensorTap = tap }
        return tap
    }

    /// Serves a recording's steps: before moving time, waits for what the peripherals said they sent and dropped;
    /// before and after, waits until the `sensors` are each connected or waiting to reconnect on ``steppedClock`` and
    /// the display loop sleeps there too (one sleeper per sensor, one for the display). A step that reaches `duration`
    /// (`--duration`) is not answered: the recording ends, and ``ended()`` answers `ended`.
    func recordingStarted(sensors: Int, loops: Int, duration: Double?) {
        guard let tap = lock.withLock({ sensorTap }) else { return }
        let end = duration.map { Duration.milliseconds(Int64($0 * 1000)) }
        serve { [self] command in
            await tap.wait { $0.notifications >= command.notifications && $0.drops >= command.drops }
            try await settle(tap, sleepers: sensors + loops)
            guard command.milliseconds > 0 else { return "ok" }
            advance(by: command.milliseconds)
            if let end, storeClock.now.offset >= end { return nil }
            try await settle(tap, sleepers: sensors + loops)
            return "ok"
        }
    }

    /// Serves a peripheral's steps: moves time, waits until its notification loop is asleep again, and answers
    /// what it has sent and dropped.
    func peripheralStarted(sent: @escaping @Sendable () async -> Int, dropped: @escaping @Sendable () -> Int) {
        serve { [self] command in
            advance(by: command.milliseconds)
            try await steppedClock.waitForSleepers(1)  // the notification loop, asleep again
            return "sent \(await sent()) closed \(dropped())"
        }
    }

    /// Serves a paced replay's steps: before and after moving time, waits until the replay sleeps until its next
    /// notification, then runs `draw` (the display's frame: in stepped time it is drawn here, once per step, instead
    /// of by a loop that would race the replay).
    func pacedReplayStarted(draw: @escaping @Sendable () async -> Void) -> Bool {
        serve { [self] command in
            try await pacingClock.waitForSleepers(1)  // the replay has started (its pacer counts from the clock's now)
            advance(by: command.milliseconds)
            try await pacingClock.waitForSleepers(1)
            await draw()
            return "ok"
        }
        return true
    }

    private func settle(_ tap: SteppedTap, sleepers: Int) async throws {
        while true {
            await tap.wait { $0.connecting.isEmpty }
            try await steppedClock.waitForSleepers(sleepers)
            if tap.current.connecting.isEmpty { return }
        }
    }
}
