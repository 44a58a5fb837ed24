import FitnessSensors
import Foundation
import HealthKitModel

/// The hot path: a sensor's reading becomes samples, statistics, zone time, a journal item and a delivery.
extension RecordingCore {
    // MARK: Collection plan

    /// The data source's settings, when it is attached (the core owns them from then on).
    package mutating func adopt(_ settings: CollectionSettings) {
        self.settings = settings
        // A data source attached during a multisport leg (or to a recovered one) collects for the leg.
        if let leg = activities.last(where: { $0.end == nil }) {
            self.settings.activity = leg.configuration.activityType
        }
        collected = self.settings.collectedCodes
    }

    /// Changes what is collected (the app's `enableCollection`/`disableCollection`, the sensors' capabilities).
    @discardableResult
    package mutating func updateSettings<T>(_ change: (inout CollectionSettings) -> T) -> T {
        defer { collected = settings.collectedCodes }
        return change(&settings)
    }

    /// The activity changed: the plan follows it, and no reading bridges the change (energy, distance). Only
    /// `apply` calls it (`activityBegan`, `activityEnded`), so the journal's fold repeats it.
    mutating func activityChanged(to activity: HKWorkoutActivityType) {
        updateSettings { $0.activity = activity }
        for index in channels.indices { channels[index].mapper.reset() }
    }

    package func collects(_ code: UInt16) -> Bool {
        Int(code) < collected.count && collected[Int(code)]
    }

    /// Adds a sensor; returns its channel, which ranks after every channel added before it.
    package mutating func addChannel(identifier: String, deviceCode: UInt32) -> Int {
        if let existing = channels.firstIndex(where: { $0.identifier == identifier }) { return existing }
        channels.append(Channel(identifier: identifier, deviceCode: deviceCode))
        return channels.count - 1
    }

    /// A channel's sensor told more about itself (its Device Information, read once it connected): its samples
    /// from now on name the fuller device.
    package mutating func updateDevice(of channel: Int, deviceCode: UInt32) {
        guard channels.indices.contains(channel) else { return }
        channels[channel].deviceCode = deviceCode
    }

    // MARK: Readings

    /// A reading from a channel, at its wall time `time`; `now` is the shell's monotonic time.
    package mutating func received(
        _ value: SensorReadingValue, from channel: Int, at time: Double, now: Duration
    ) -> Actions {
        guard collecting, sessionRunning, channels.indices.contains(channel) else { return .none }
        var samples = scratch
        scratch = []
        defer {
            samples.removeAll(keepingCapacity: true)
            scratch = samples
        }
        channels[channel].mapper.samples(
            for: value, at: time, activity: settings.activity,
            deviceCode: channels[channel].deviceCode, into: &samples)
        guard !samples.isEmpty, let measurement = MeasurementOwners.Measurement(value),
            owners.take(measurement, from: channel, at: time, demoted: MeasurementOwners.isDemoted(value))
        else {
            return .none
        }
        var beats: [HeartbeatCollector.Beat] = []
        if case .heartRate(let reading) = value, !reading.rrIntervals.isEmpty, collects(ReadingMapper.Types.heartRate) {
            beats = heartbeats.add(reading.rrIntervals, arrivedAt: time, sensor: channels[channel].identifier)
        }
        // Energy integrated from power counts only while power itself is collected (not from a meter left on
        // during a swim).
        if case .power = value, let power = samples.first, !collects(power.typeCode) {
            samples.removeAll(keepingCapacity: true)
        }
        if !settings.collectsGeneratedTypes { samples.removeAll { ReadingMapper.isGenerated($0, from: value) } }
        if samples.contains(where: { !collects($0.typeCode) }) { samples.removeAll { !collects($0.typeCode) } }
        if !settings.predicates.isEmpty {
            let predicates = settings.predicates
            samples.removeAll { sample in
                guard let predicate = predicates[sample.type] else { return false }
                return !predicate.evaluate(with: sample.object())
            }
        }
        var actions = Actions()
        collect(samples, beats: beats, now: now, into: &actions)
        return actions
    }

    /// A channel's link changed. A disconnection forgets the sensor's continuity: no energy or distance is bridged
    /// across the gap, its next heartbeat follows a gap, and the next sensor takes over what it measured.
    package mutating func connectionChanged(_ state: SensorConnectionState, channel: Int) {
        guard channels.indices.contains(channel), case .disconnected = state else { return }
        channels[channel].mapper.reset()
        heartbeats.gap(sensor: channels[channel].identifier)
        owners.forget(channel: channel)
    }

    /// Samples counted, journaled (while there is a journal), zoned and noted for delivery.
    package mutating func collect(
        _ samples: [CollectedSample], beats: [HeartbeatCollector.Beat] = [], now: Duration,
        into actions: inout Actions
    ) {
        guard !samples.isEmpty || !beats.isEmpty else { return }
        for sample in samples { statistics.add(sample) }
        apply(journal.append(samples, beats: beats, now: now), to: &actions)
        let changes = zones.collect(samples)
        if hasDelegate {
            for sample in samples { deliveries.notePending(sample.typeCode) }
        }
        if !changes.isEmpty { deliveries.noteZoneChanges(changes) }
        actions.delivery = deliveries.schedule(now: now)
    }

    /// The flush timer's tick at `now` (monotonic) and `time` (wall, seconds since the reference date): the journal
    /// batch that is due, if any, and, while collecting, a zone gone stale since the last reading (a silent strap),
    /// queued for the delegate.
    package mutating func tick(now: Duration, time: Double) -> Actions {
        var actions = Actions()
        if let batch = journal.batchIfDue(now: now) { actions.writes.append(batch) }
        if collecting, let delivery = zonesChanged(zones.check(at: Date(storeValue: time)), now: now) {
            actions.delivery = delivery
        }
        return actions
    }

    private mutating func apply(_ outcome: JournalBuffer.Outcome, to actions: inout Actions) {
        switch outcome {
        case .nothing: break
        case .write(let batch): actions.writes.append(batch)
        case .fail(let error): actions.failure = error
        }
        actions.pressure = journal.takePressureChange()
    }

    // MARK: Deliveries

    /// Zone changes found elsewhere (a pause, a stale value): they wait for the next delivery.
    package mutating func zonesChanged(_ changes: [ZoneChange], now: Duration) -> Deliveries.Scheduled? {
        guard !changes.isEmpty else { return nil }
        deliveries.noteZoneChanges(changes)
        return deliveries.schedule(now: now)
    }

    /// Whether the zone in effect has gone stale at `date`, while collecting: the changes, for the delegate.
    package mutating func checkZones(at date: Date) -> [ZoneChange] {
        collecting ? zones.check(at: date) : []
    }

    /// What a scheduled delivery delivers: everything waiting, or nothing if a call of another kind took it.
    package mutating func takeDelivery(_ ticket: UInt64) -> Deliveries.Due {
        deliveries.take(scheduled: ticket)
    }

    /// Everything waiting for delivery; the scheduled delivery, if any, is void.
    package mutating func takeAllDeliveries() -> Deliveries.Due {
        deliveries.takeAll()
    }

    /// Subscribes to zone updates; false once the builder has finished or was discarded.
    package mutating func addZoneListener(
        _ id: UUID, _ continuation: AsyncStream<HKLiveWorkoutZoneUpdate>.Continuation
    ) -> Bool {
        guard lifecycle.phase != .finished && lifecycle.phase != .discarded else { return false }
        deliveries.listeners[id] = continuation
        return true
    }

    package mutating func removeZoneListener(_ id: UUID) {
        deliveries.listeners.removeValue(forKey: id)
    }

    /// Every subscriber, unsubscribed (the workout finished).
    package mutating func takeZoneListeners() -> [AsyncStream<HKLiveWorkoutZoneUpdate>.Continuation] {
        defer { deliveries.listeners = [:] }
        return Array(deliveries.listeners.values)
    }

    // MARK: The journal's writer

    /// The writer wrote a batch of `count` samples and beats; its emptied sample buffer is kept for reuse. Returns
    /// the batch to write next (a full buffer held back for the writer) and a change of the back-pressure.
    package mutating func written(buffer: [CollectedSample], count: Int) -> (next: JournalBatch?, pressure: Bool?) {
        let next = journal.written(buffer: buffer, count: count)
        return (next, journal.takePressureChange())
    }

    /// The writer could not write a batch: its samples wait again and the next call that can throw reports it.
    /// Producers are not kept waiting for a writer that fails. Returns a change of the back-pressure.
    package mutating func writeFailed(_ batch: JournalBatch, error: any Error, now: Duration) -> Bool? {
        journal.failed(batch, error: error, now: now)
        return journal.takePressureChange()
    }

    /// The error of a failed write, once.
    package mutating func takeWriteFailure() -> (any Error)? {
        journal.takeFailure()
    }

    /// Every buffered sample as one batch, for the writer (the end of collection).
    package mutating func flush() -> JournalBatch? {
        journal.handOver(entry: nil)
    }

    /// Whether the flush timer has anything left to do.
    package var isJournalOpen: Bool { journalWriter != nil && !journal.closed }
}

extension CollectedSample {
    /// The sample as an object, for evaluating a predicate.
    package func object() -> HKQuantitySample {
        HKQuantitySample(
            quantityType: type, quantity: HKQuantity(unit: type.storageUnit, doubleValue: value),
            startDate: Date(storeValue: start), endDate: Date(storeValue: end), count: 1, uuid: uuid,
            metadata: nil, device: device, sourceRevision: nil)
    }
}
