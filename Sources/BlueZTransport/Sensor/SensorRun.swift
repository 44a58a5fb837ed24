import FitnessSensors
import Foundation
import Synchronization

/// What a Bluetooth sensor keeps while it is started, the same on either path (the raw ``BLESensor``, the D-Bus
/// sensor through bluetoothd): the outlet its events go through, the task that keeps it connected, and the task the
/// last stop cancelled, which releases what the connection held.
public final class SensorRun: Sendable {
    private let identifier: String
    private let tap: (any NotificationTap)?
    private let wallClock: @Sendable () -> Date
    private let outlet = SensorOutlet()
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let stopping = Mutex<Task<Void, Never>?>(nil)

    /// Events are stamped with `wallClock`; connection changes are also told to `tap` under `identifier`.
    public init(identifier: String, tap: (any NotificationTap)?, wallClock: @escaping @Sendable () -> Date) {
        self.identifier = identifier
        self.tap = tap
        self.wallClock = wallClock
    }

    deinit { task.withLock { $0?.cancel() } }

    /// Hands events to `handler`, and runs `maintain` (the connection loop) unless it already runs.
    public func start(
        _ handler: @escaping @Sendable (SensorEvent) -> Void, maintain: @escaping @Sendable () async -> Void
    ) {
        outlet.start(handler)
        task.withLock { task in
            guard task == nil else { return }
            task = Task { await maintain() }
        }
    }

    /// Stops the events and cancels the connection loop, which releases what it held as it ends.
    public func stop() {
        outlet.stop()
        let running = task.withLock { task in
            defer { task = nil }
            return task
        }
        running?.cancel()
        if let running { stopping.withLock { $0 = running } }
    }

    /// Returns once the loop the last ``stop()`` cancelled has ended, with what it held released.
    public func waitUntilReleased() async {
        await stopping.withLock { $0 }?.value
    }

    /// Delivers one event, stamped now, unless the sensor was stopped.
    public func emit(_ kind: SensorEvent.Kind) {
        outlet.send { () -> SensorEvent in
            let now = wallClock()
            if case .connection(let state) = kind { tap?.sensor(identifier, changedTo: state, at: now) }
            return SensorEvent(timestamp: now, kind: kind)
        }
    }
}
