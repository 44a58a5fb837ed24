import FitnessSensors
import Foundation
import Logging
import Synchronization

/// The one engine under both Bluetooth sensors (the raw ``BLESensor`` and the D-Bus sensor through bluetoothd): it
/// keeps a started sensor connected, one ``SensorSession`` (one connection) after another, and owns what outlives a
/// connection: the events' outlet, the reconnection loop and its backoff, the reading interpreter, the duplicate
/// filter, the malformed count, Device Information and the control link.
///
/// The loop: `.connecting`, a session until it ends, its reason logged and reported as `.disconnected`, the
/// interpreter reset and the duplicate filter told the link restarted, then the backoff's delay on the injected
/// clock. A session that came up (``SessionLink/connected()``) starts the backoff over. OpenHealthKit.
public final class SensorEngine: Sendable {
    package let identifier: String
    package let name: String
    package let capabilities: SensorCapabilities
    package let options: SensorLinkOptions
    package let clock: any Clock<Duration>
    package let wallClock: @Sendable () -> Date
    package let logger: Logger
    /// The current connection as far as control needs it (``ControllableSensor``).
    package let control = ControlLinkHub()
    /// What the first connection that offered it read of Device Information (it does not change between two).
    package let information = Mutex(DeviceInformation())

    /// Whether a connection should read Device Information: none has yet (both paths read it once, before they
    /// subscribe, so that the samples name the sensor's maker and model from the connected event on).
    package var readsInformation: Bool { information.withLock { $0 == DeviceInformation() } }
    private let malformed = Atomic<Int>(0)
    private let outlet = SensorOutlet()
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let stopping = Mutex<Task<Void, Never>?>(nil)

    /// A sensor's engine: events are stamped with `wallClock`; backoff and arrival times come from `clock`.
    package init(
        identifier: String, name: String, capabilities: SensorCapabilities, options: SensorLinkOptions,
        clock: any Clock<Duration>, wallClock: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.identifier = identifier
        self.name = name
        self.capabilities = capabilities
        self.options = options
        self.clock = clock
        self.wallClock = wallClock
        self.logger = logger
    }

    deinit { task.withLock { $0?.cancel() } }

    /// Values that did not decode, counted (and logged) and skipped.
    package var malformedNotifications: Int { malformed.load(ordering: .relaxed) }

    /// Hands events to `handler`, and runs the connection loop over `session` unless it already runs.
    package func start(_ handler: @escaping @Sendable (SensorEvent) -> Void, session: some SensorSession) {
        outlet.start(handler)
        task.withLock { task in
            guard task == nil else { return }
            task = Task { await self.maintainConnection(session, clock: self.clock) }
        }
    }

    /// Stops the events and cancels the connection loop, which releases what it held as it ends.
    package func stop() {
        outlet.stop()
        let running = task.withLock { task in
            defer { task = nil }
            return task
        }
        running?.cancel()
        if let running { stopping.withLock { $0 = running } }
    }

    /// Returns once the loop the last ``stop()`` cancelled has ended, with what it held released.
    package func waitUntilReleased() async {
        await stopping.withLock { $0 }?.value
    }

    /// Delivers one event, stamped now, unless the sensor was stopped; the tap hears connection changes.
    package func emit(_ kind: SensorEvent.Kind) {
        outlet.send { () -> SensorEvent in
            let now = wallClock()
            if case .connection(let state) = kind { options.tap?.sensor(identifier, changedTo: state, at: now) }
            return SensorEvent(timestamp: now, kind: kind)
        }
    }

    /// Per-sensor state that outlives a connection.
    struct Continuity {
        var interpreter: SensorReadingInterpreter
        var deduplicator: NotificationDeduplicator
        var backoff: ReconnectBackoff
        /// Sessions begun since the sensor started.
        var sessions = 0
    }

    private func maintainConnection<C: Clock>(_ session: some SensorSession, clock: C) async
    where C.Duration == Duration {
        let link = SessionLink(
            engine: self, clock: clock, origin: clock.now,
            continuity: Locked(
                Continuity(
                    interpreter: SensorReadingInterpreter(wheelCircumference: options.wheelCircumference),
                    deduplicator: NotificationDeduplicator(window: options.duplicateWindow),
                    backoff: ReconnectBackoff(initial: options.initialBackoff, maximum: options.maximumBackoff))))
        while !Task.isCancelled {
            emit(.connection(.connecting))
            let reason: String
            do {
                reason = try await session.run(link)
            } catch {
                if Task.isCancelled { return }
                reason = session.sentence(for: error)
            }
            if Task.isCancelled { return }
            logger.info("\(identifier) disconnected: \(reason)")
            emit(.connection(.disconnected(reason: reason)))
            let delay = link.continuity.withLock { state in
                state.interpreter.reset()
                state.deduplicator.linkRestarted()
                return state.backoff.next()
            }
            do { try await clock.sleep(for: delay) } catch { return }
        }
    }

    /// Decodes a value and pushes its readings; a value that repeats one already taken is dropped (unless
    /// `checkingDuplicates` is false), and a malformed one is counted, logged and skipped. `arrived` runs once the
    /// value is known to be new, before its readings. The tap hears the bytes (stamped when they arrived) once
    /// their readings have been delivered, so a tap that counts values knows that what it counted has reached the
    /// data source.
    fileprivate func deliver(
        _ characteristic: UInt16, _ bytes: [UInt8], at arrival: TimeInterval, continuity: Locked<Continuity>,
        checkingDuplicates: Bool, arrived: () -> Void = {}
    ) {
        let result: Result<[SensorReadingValue], any Error>? = continuity.withLock { state in
            if checkingDuplicates,
                state.deduplicator.isDuplicate(characteristic: characteristic, bytes: bytes, at: arrival)
            {
                return nil
            }
            return Result { try state.interpreter.readings(fromValue: bytes, of: characteristic, at: arrival) }
        }
        let hex = String(characteristic, radix: 16, uppercase: true)
        guard let result else {
            logger.debug("\(identifier): duplicate 0x\(hex) value; dropped")
            return
        }
        arrived()
        let arrivedAt = wallClock()
        defer { options.tap?.sensor(identifier, received: bytes, characteristic: characteristic, at: arrivedAt) }
        switch result {
        case .success(let readings):
            for reading in readings { emit(.reading(reading)) }
        case .failure(let error):
            malformed.add(1, ordering: .relaxed)
            logger.warning(
                "\(identifier): malformed 0x\(hex) value [\(bytes.map { String(format: "%02X", $0) }.joined(separator: " "))]: \(error); skipped"
            )
        }
    }
}

/// What a session sees of the engine for one connection: the clock, the values it receives, and the moment it is
/// up. Handed to ``SensorSession/run(_:)``; values may arrive on any thread.
package struct SessionLink<C: Clock>: Sendable where C.Duration == Duration {
    package let engine: SensorEngine
    package let clock: C
    /// When the loop began: arrival times are seconds since then.
    let origin: C.Instant
    let continuity: Locked<SensorEngine.Continuity>

    /// Counts a session as begun; true for the first since the sensor started (where a transport decides what it
    /// found and what it made, such as whether the link was already up).
    package func beganSession() -> Bool {
        continuity.withLock { state in
            state.sessions += 1
            return state.sessions == 1
        }
    }

    /// The session is up: the backoff starts over and the sensor is reported connected.
    package func connected() {
        continuity.withLock { $0.backoff.reset() }
        engine.emit(.connection(.connected))
    }

    /// A watch over this connection's arrivals, from now, with the engine's `staleAfter`.
    package func watchArrivals() -> ArrivalWatch<C.Instant> {
        ArrivalWatch(connectedAt: clock.now, staleAfter: engine.options.staleAfter)
    }

    /// Reports the sensor stale (`.disconnected` with the silence's sentence) each time it goes silent, until
    /// cancelled.
    package func reportSilences(_ arrivals: ArrivalWatch<C.Instant>) async throws {
        try await arrivals.reportSilences(on: clock) { engine.emit(.connection(.disconnected(reason: $0))) }
    }

    /// The values read at connection that the control link wants (``ControlLinkHub/reads``), to it: called before
    /// the link is up, so that its watcher knows them when it hears `.connected`.
    package func controlReads(_ reads: [(UInt16, [UInt8])]) {
        for (characteristic, bytes) in reads where ControlLinkHub.reads.contains(characteristic) {
            engine.control.value(characteristic, bytes)
        }
    }

    /// A value read at connection (battery, a profile's read): delivered as it is, never taken for a duplicate.
    package func deliverRead(_ characteristic: UInt16, _ bytes: [UInt8]) {
        engine.deliver(
            characteristic, bytes, at: clock.now.seconds(since: origin), continuity: continuity,
            checkingDuplicates: false)
    }

    /// A notified or indicated value: the control link hears the control point's and status values as they came;
    /// a re-delivered value is dropped; a new one counts as an arrival (a stale sensor is `.connected` again) and
    /// is delivered.
    ///
    /// Answers to control requests are never re-deliveries, however alike (two targets accepted: `80 05 01`
    /// twice): indications are confirmed, so a peer does not send one twice.
    package func received(_ characteristic: UInt16, _ bytes: [UInt8], arrivals: ArrivalWatch<C.Instant>) {
        if ControlLinkHub.characteristics.contains(characteristic) { engine.control.value(characteristic, bytes) }
        let now = clock.now
        let isAnswer = characteristic == GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint
        engine.deliver(
            characteristic, bytes, at: now.seconds(since: origin), continuity: continuity,
            checkingDuplicates: !isAnswer
        ) {
            if arrivals.arrived(at: now) { engine.emit(.connection(.connected)) }
        }
    }
}
