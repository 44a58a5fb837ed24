import Foundation

/// Where a sensor's events leave it: the one place that holds a sensor's handler, so every kind of sensor — a BLE
/// strap, a fixture being replayed, a script — honours `start` and `stop` the same way.
///
/// - Events reach the handler one at a time, in the order they were sent.
/// - Once ``stop()`` returns, no event reaches the handler: a delivery in progress on another thread finishes
///   first. A handler may call `stop()` from inside a delivery.
/// - ``start(_:)`` while started replaces the handler for the events after it.
///
/// - A handler's owner that falls behind raises its ``SensorBackPressure``; a producer that can wait calls
///   ``waitForDemand()`` after sending, and is suspended there, outside the lock, until the owner has caught up.
///
/// One lock acquisition per event (a recursive lock, for the stop-from-inside case).
public final class SensorOutlet: @unchecked Sendable {
    private let lock = NSRecursiveLock()
    private var handler: (@Sendable (SensorEvent) -> Void)?
    private var backPressure: SensorBackPressure?

    public init() {}

    public func start(_ handler: @escaping @Sendable (SensorEvent) -> Void) {
        lock.withLock {
            self.handler = handler
            backPressure = nil
        }
    }

    /// Starts delivering to `handler`, whose owner raises `backPressure` when it falls behind. OpenHealthKit.
    public func start(_ handler: @escaping @Sendable (SensorEvent) -> Void, backPressure: SensorBackPressure) {
        lock.withLock {
            self.handler = handler
            self.backPressure = backPressure
        }
    }

    public func stop() {
        lock.withLock {
            handler = nil
            backPressure = nil
        }
    }

    /// Returns once the handler's owner has caught up (at once unless it raised its back-pressure); the calling
    /// task is suspended meanwhile, and the outlet's lock is not held. OpenHealthKit.
    nonisolated(nonsending) public func waitForDemand() async {
        guard let backPressure = lock.withLock({ self.backPressure }) else { return }
        await backPressure.wait()
    }

    /// Whether a handler is attached.
    public var isStarted: Bool { lock.withLock { handler != nil } }

    /// Sends an event; returns false when the sensor is stopped (the event is dropped).
    @discardableResult
    public func send(_ event: SensorEvent) -> Bool {
        lock.withLock {
            guard let handler else { return false }
            handler(event)
            return true
        }
    }

    /// Sends an event made under the lock (so that, say, its timestamp is read in delivery order).
    @discardableResult
    public func send(_ makeEvent: () -> SensorEvent) -> Bool {
        lock.withLock {
            guard let handler else { return false }
            handler(makeEvent())
            return true
        }
    }
}
