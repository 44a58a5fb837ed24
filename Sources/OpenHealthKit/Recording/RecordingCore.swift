import FitnessSensors
import Foundation

/// The live recording between a sensor's typed reading and the store, as one value: it maps readings to samples
/// for the collected types (one device per measurement), keeps the statistics, the zones, the deliveries waiting
/// for the delegate and the journal's buffer, and answers each input with the actions its shell must carry out.
///
/// Inputs: a reading or a connection change from a channel, samples an app adds, a change of the session's state,
/// of the builder's phase, of the activity or of what is collected, and a tick of the flush timer. The core never
/// reads a clock and never asks anyone anything: the times come in with the inputs (`time`, a reading's own wall
/// time in seconds since the reference date; `now`, the shell's monotonic clock). Its shell is the workout builder,
/// which holds it under its one lock, hands journal batches to the writer without waiting, and waits (for the
/// writer's back-pressure, or for an entry to be written) only after unlocking.
///
/// In the manner of swift-async-algorithms' state machines, with the effects returned rather than performed.
struct RecordingCore {
    /// What the shell does after an input. A fixed set of slots rather than an array of actions, so a reading
    /// allocates nothing for them.
    struct Actions {
        /// Hand this batch to the journal's writer.
        var write: JournalBatch?
        /// A journal write failed earlier: report it.
        var failure: (any Error)?
        /// Queue a delivery to the delegate queue.
        var delivery: Deliveries.Scheduled?

        static var none: Actions { Actions() }
    }

    /// A sensor feeding the recording, in the data source's order.
    struct Channel {
        let identifier: String
        /// The sensor's device, as its samples name it.
        var deviceCode: UInt32
        var mapper = ReadingMapper()
    }

    // The collection plan.
    private(set) var settings: CollectionSettings
    private var collected: [Bool]
    private(set) var channels: [Channel] = []
    private var owners = MeasurementOwners()
    private var heartbeats = HeartbeatCollector()

    // What the recording has made.
    var statistics = BuilderStatistics()
    var zones = BuilderZones()
    var journal = JournalBuffer(sequence: 0)
    var deliveries: Deliveries

    // What it is told.
    /// The builder is collecting (its phase is active).
    var collecting = false
    /// The session, if any, is running (readings are dropped while it is paused or stopped). A pause ends every
    /// reading's hold: no energy is integrated across it (``PowerEnergy``).
    var sessionRunning = true {
        didSet { if !sessionRunning { for index in channels.indices { channels[index].mapper.reset() } } }
    }
    /// A delegate is set: collected types are delivered.
    var hasDelegate = false
    /// Reused between readings so that mapping one allocates nothing.
    private var scratch: [CollectedSample] = []

    init(activity: HKWorkoutActivityType, deliverySpacing: Duration) {
        settings = CollectionSettings(activity: activity)
        collected = settings.collectedCodes
        deliveries = Deliveries(spacing: deliverySpacing)
        scratch.reserveCapacity(4)
    }

    // MARK: Collection plan

    /// The data source's settings, when it is attached (the core owns them from then on).
    mutating func adopt(_ settings: CollectionSettings) {
        self.settings = settings
        collected = settings.collectedCodes
    }

    /// Changes what is collected (the app's `enableCollection`/`disableCollection`, the sensors' capabilities).
    @discardableResult
    mutating func updateSettings<T>(_ change: (inout CollectionSettings) -> T) -> T {
        defer { collected = settings.collectedCodes }
        return change(&settings)
    }

    /// The activity changed: the plan follows it, and no reading bridges the change (energy, distance).
    mutating func activityChanged(to activity: HKWorkoutActivityType) {
        updateSettings { $0.activity = activity }
        for index in channels.indices { channels[index].mapper.reset() }
    }

    private func collects(_ code: UInt16) -> Bool {
        Int(code) < collected.count && collected[Int(code)]
    }

    /// Adds a sensor; returns its channel, which ranks after every channel added before it.
    mutating func addChannel(identifier: String, deviceCode: UInt32) -> Int {
        if let existing = channels.firstIndex(where: { $0.identifier == identifier }) { return existing }
        channels.append(Channel(identifier: identifier, deviceCode: deviceCode))
        return channels.count - 1
    }

    /// A channel's sensor told more about itself (its Device Information, read once it connected): its samples
    /// from now on name the fuller device.
    mutating func updateDevice(of channel: Int, deviceCode: UInt32) {
        guard channels.indices.contains(channel) else { return }
        channels[channel].deviceCode = deviceCode
    }

    // MARK: Inputs

    /// A reading from a channel, at its wall time `time`; `now` is the shell's monotonic time.
    mutating func received(_ value: SensorReadingValue, from channel: Int, at time: Double, now: Duration) -> Actions {
        guard collecting, sessionRunning, channels.indices.contains(channel) else { return .none }
        var samples = scratch
        scratch = []
        defer { samples.removeAll(keepingCapacity: true); scratch = samples }
        channels[channel].mapper.samples(for: value, at: time, activity: settings.activity,
                                         deviceCode: channels[channel].deviceCode, into: &samples)
        guard !samples.isEmpty, let measurement = MeasurementOwners.Measurement(value),
              owners.take(measurement, from: channel, at: time) else { return .none }
        var beats: [HeartbeatCollector.Beat] = []
        if case .heartRate(let reading) = value, !reading.rrIntervals.isEmpty, collects(ReadingMapper.Types.heartRate) {
            beats = heartbeats.add(reading.rrIntervals, arrivedAt: time, sensor: channels[channel].identifier)
        }
        // Energy integrated from power counts only while power itself is collected (not from a meter left on
        // during a swim).
        if case .power = value, !collects(ReadingMapper.Types.cyclingPower) { samples.removeAll(keepingCapacity: true) }
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
    mutating func connectionChanged(_ state: SensorConnectionState, channel: Int) {
        guard channels.indices.contains(channel), case .disconnected = state else { return }
        channels[channel].mapper.reset()
        heartbeats.gap(sensor: channels[channel].identifier)
        owners.forget(channel: channel)
    }

    /// Samples that are already made (an app's `addSamples`); the builder has checked it may add them.
    mutating func appended(_ samples: [CollectedSample], now: Duration) -> Actions {
        var actions = Actions()
        collect(samples, now: now, into: &actions)
        return actions
    }

    private mutating func collect(_ samples: [CollectedSample], beats: [HeartbeatCollector.Beat] = [], now: Duration,
                                  into actions: inout Actions) {
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

    /// Zone changes found elsewhere (a pause, a stale value): they wait for the next delivery.
    mutating func zonesChanged(_ changes: [ZoneChange], now: Duration) -> Deliveries.Scheduled? {
        guard !changes.isEmpty else { return nil }
        deliveries.noteZoneChanges(changes)
        return deliveries.schedule(now: now)
    }

    /// The flush timer's tick at `now` (monotonic) and `time` (wall, seconds since the reference date): the journal
    /// batch that is due, if any, and, while collecting, a zone gone stale since the last reading (a silent strap),
    /// queued for the delegate.
    mutating func tick(now: Duration, time: Double) -> Actions {
        var actions = Actions()
        actions.write = journal.batchIfDue(now: now)
        if collecting, let delivery = zonesChanged(zones.check(at: Date(storeValue: time)), now: now) {
            actions.delivery = delivery
        }
        return actions
    }

    private func apply(_ outcome: JournalBuffer.Outcome, to actions: inout Actions) {
        switch outcome {
        case .nothing: break
        case .write(let batch): actions.write = batch
        case .fail(let error): actions.failure = error
        }
    }
}

extension CollectedSample {
    /// The sample as an object, for evaluating a predicate.
    func object() -> HKQuantitySample {
        HKQuantitySample(quantityType: type, quantity: HKQuantity(unit: type.storageUnit, doubleValue: value),
                         startDate: Date(storeValue: start), endDate: Date(storeValue: end), count: 1, uuid: uuid,
                         metadata: nil, device: device, sourceRevision: nil)
    }
}
