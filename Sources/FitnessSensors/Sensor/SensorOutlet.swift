import Foundation
import Synchronization

/// Where a sensor's events leave it: the one place that holds a sensor's handler, so every kind of sensor — a BLE
/// strap, a fixture being replayed, a script — honours `start` and `stop` the same way.
///
/// - Events reach the handler one at a time, in the order they were sent.
/// - Once ``stop()`` returns, no event reaches the handler: a delivery in progress on another thread finishes
///   first. A handler may call `stop()` (or `start(_:)`) from inside a delivery.
/// - ``start(_:)`` while started replaces the handler for the events after it.
///
/// - A handler's owner that falls behind raises its ``SensorBackPressure``; a producer that can wait calls
///   ``waitForDemand()`` after sending, and is suspended there, outside the lock, until the owner has caught up.
///
/// Two locks: `delivery`, held for a whole delivery (deliveries one at a time, and `stop()` from another thread waits
/// for the one in progress), and `state`, held only to read or change the handler, never while it runs. The thread
/// inside a delivery is noted, so that a `stop()` from the handler itself does not wait for its own delivery.
public final class SensorOutlet: Sendable {
    private struct State {
        var handler: (@Sendable (SensorEvent) -> Void)?
        var backPressure: SensorBackPressure?
    }

    private let state = Mutex(State())
    private let delivery = Mutex(())
    /// The thread delivering an event (`pthread_self`), 0 when none: only that thread writes its own number here.
    private let deliveringThread = Atomic<UInt>(0)

    public init() {}

    public func start(_ handler: @escaping @Sendable (SensorEvent) -> Void) {
        state.withLock { $0 = State(handler: handler, backPressure: nil) }
    }

    /// Starts delivering to `handler`, whose owner raises `backPressure` when it falls behind. OpenHealthKit.
    public func start(_ handler: @escaping @Sendable (SensorEvent) -> Void, backPressure: SensorBackPressure) {
        state.withLock { $0 = State(handler: handler, backPressure: backPressure) }
    }

    public func stop() {
        if deliveringThread.load(ordering: .acquiring) == Self.currentThread {
            // From the handler: its own delivery is the one in progress, and no other can be.
            state.withLock { $0 = State() }
        } else {
            delivery.withLock { _ in state.withLock { $0 = State() } }
        }
    }

    /// Returns once the handler's owner has caught up (at once unless it raised its back-pressure); the calling
    /// task is suspended meanwhile, and the outlet's locks are not held. OpenHealthKit.
    nonisolated(nonsending) public func waitForDemand() async {
        guard let backPressure = state.withLock({ $0.backPressure }) else { return }
        await backPressure.wait()
    }

    /// Whether a handler is attached.
    public var isStarted: Bool { state.withLock { $0.handler != nil } }

    /// Sends an event; returns false when the sensor is stopped (the event is dropped).
    @discardableResult
    public func send(_ event: SensorEvent) -> Bool {
        deliver { event }
    }

    /// Sends an event made inside the delivery (so that, say, its timestamp is read in delivery order).
    @discardableResult
    public func send(_ makeEvent: () -> SensorEvent) -> Bool {
        deliver(makeEvent)
    }

    private func deliver(_ makeEvent: () -> SensorEvent) -> Bool {
        delivery.withLock { _ in
            guard let handler = state.withLock({ $0.handler }) else { return false }
            deliveringThread.store(Self.currentThread, ordering: .releasing)
            defer { deliveringThread.store(0, ordering: .releasing) }
            handler(makeEvent())
            return true
        }
    }

    private static var currentThread: UInt { UInt(pthread_self()) }
}
