import Foundation

/// Where a sensor's events leave it: the one place that holds a sensor's handler, so every kind of sensor — a BLE
/// strap, a fixture being replayed, a script — honours `start` and `stop` the same way.
///
/// - Events reach the handler one at a time, in the order they were sent.
/// - Once ``stop()`` returns, no event reaches the handler: a delivery in progress on another thread finishes
///   first. A handler may call `stop()` from inside a delivery.
/// - ``start(_:)`` while started replaces the handler for the events after it.
///
/// One lock acquisition per event (a recursive lock, for the stop-from-inside case).
public final class SensorOutlet: @unchecked Sendable {
    private let lock = NSRecursiveLock()
    private var handler: (@Sendable (SensorEvent) -> Void)?

    public init() {}

    public func start(_ handler: @escaping @Sendable (SensorEvent) -> Void) {
        lock.withLock { self.handler = handler }
    }

    public func stop() {
        lock.withLock { handler = nil }
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
