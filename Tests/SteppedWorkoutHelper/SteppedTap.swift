import FitnessSensors
import Foundation
import OpenHealthKit
import OpenHealthKitTesting
import Synchronization

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
    /// before and after, waits until the `sensors` are each connected or waiting to reconnect on ``steppedClock``,
    /// the `trainers` have answered every control request written to them (a simulated trainer answers at once, in
    /// real time), and the loops sleep there too (one sleeper per sensor, one per loop). A step that reaches
    /// `duration` (`--duration`) is not answered: the recording ends, and ``ended()`` answers `ended`.
    func recordingStarted(sensors: Int, loops: Int, trainers: TrainerTargets?, duration: Double?) {
        guard let tap = lock.withLock({ sensorTap }) else { return }
        let end = duration.map { Duration.milliseconds(Int64($0 * 1000)) }
        let answered = TrainerAnswers(trainers)
        lock.withLock { trainerAnswers = answered }
        serve { [self] command in
            await tap.wait { $0.notifications >= command.notifications && $0.drops >= command.drops }
            try await settle(tap, answered, sleepers: sensors + loops)
            guard command.milliseconds > 0 else { return "ok" }
            advance(by: command.milliseconds)
            if let end, storeClock.now.offset >= end { return nil }
            try await settle(tap, answered, sleepers: sensors + loops)
            return "ok"
        }
    }

    func trainersChanged() {
        lock.withLock { trainerAnswers }?.changed()
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

    /// Waits until no sensor is connecting, no trainer awaits an answer, and `sleepers` tasks sleep on the clock
    /// (a trainer's request that waits for its answer has one more asleep: its timeout, so both are checked again).
    private func settle(_ tap: SteppedTap, _ answered: TrainerAnswers, sleepers: Int) async throws {
        while true {
            await tap.wait { $0.connecting.isEmpty }
            await answered.wait()
            try await steppedClock.waitForSleepers(sleepers)
            if tap.current.connecting.isEmpty, !answered.awaiting { return }
        }
    }
}

/// Whether the trainers a recording controls have answered every request written to them, and a wait for it that
/// ``trainersChanged()`` ends.
final class TrainerAnswers: Sendable {
    let trainers: TrainerTargets?
    private let waiters = Mutex([CheckedContinuation<Void, Never>]())

    init(_ trainers: TrainerTargets?) {
        self.trainers = trainers
    }

    var awaiting: Bool { trainers?.isAwaitingAnswers ?? false }

    /// Suspends until no trainer awaits an answer. (A trainer that never answers leaves the step unanswered: the
    /// test's read of the answer fails after its time limit, as for a sensor that never settles.)
    func wait() async {
        while awaiting {
            await withCheckedContinuation { continuation in
                // Checked again under the lock that `changed()` takes: an answer in between is not missed.
                let ready = waiters.withLock { waiters in
                    if !awaiting { return true }
                    waiters.append(continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    /// A trainer changed: every waiter checks again.
    func changed() {
        let woken = waiters.withLock { waiters in
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in woken { waiter.resume() }
    }
}
