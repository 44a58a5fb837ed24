import FitnessSensors
import Foundation
import HealthKitModel
import Logging
import Synchronization
import WorkoutEngine

/// Collects live samples for a workout builder from the person's sensors.
///
/// It reads from the sensors paired with the store (`HKHealthStore.pairSensor`, as a strap is paired in Settings),
/// connected through the store's ``HKHealthStore/sensorConnector``, and from sensors attached explicitly (tests, replays).
/// `typesToCollect` follows the current activity (see `CollectionPlan` for the table) and the capabilities of the
/// sensors — until the app calls `enableCollection(for:predicate:)` or `disableCollection(for:)`: from then on the
/// set is the app's and activity changes leave it alone, as HealthKit documents. Readings become samples of the types
/// collected, pass the type's predicate, and are associated with the workout and the activity in progress; readings of
/// other types are dropped, and nothing is collected while the session is paused. A sensor that goes silent or
/// disconnects produces no values. When several sensors measure the same quantity, each is taken from one sensor at a
/// time (see `MeasurementOwners`).
///
/// Derived values are rounded where readings become samples (`DerivedResolution`, OpenHealthKit's choice:
/// cadence 0.1 rpm, speed 0.001 m/s, distance 0.01 m and energy 0.001 kcal, the last two as running totals that
/// never drift), and sample times are arrival times to the millisecond, so condensed series store them as small
/// integers.
///
/// Once attached to a builder, the data source only starts and stops sensors: their readings go straight to the
/// builder's recording core (`RecordingCore`), which holds what is collected.
///
/// HealthKit: HKLiveWorkoutDataSource.
public final class HKLiveWorkoutDataSource: NSObject, Sendable {
    static let logger = Logger(label: "OpenHealthKit.HKLiveWorkoutDataSource")

    let healthStore: HKHealthStore
    /// Everything that changes, under one lock, never held while a sensor or the builder is called.
    private let state: Mutex<State>

    private struct State {
        /// What is collected while no builder holds the settings (before it is attached, after it is detached).
        var settings: CollectionSettings
        var explicitSensors: [any Sensor] = []
        var connectedSensors: [any Sensor] = []
        weak var builder: HKLiveWorkoutBuilder?
        /// One per sensor read from, in the order listed.
        var trackers: [SensorStatusTracker] = []
        var running = false
        var readsPairedSensors = true

        var capabilitiesOfSensors: SensorCapabilities {
            (explicitSensors + connectedSensors).reduce(SensorCapabilities()) { $0.union($1.capabilities) }
        }
    }

    public init(healthStore: HKHealthStore, workoutConfiguration configuration: HKWorkoutConfiguration?) {
        self.healthStore = healthStore
        self.state = Mutex(State(settings: CollectionSettings(activity: configuration?.activityType ?? .other)))
    }

    private func locked<T>(_ body: (inout State) -> T) -> T {
        state.withLock { body(&$0) }
    }

    /// Changes the settings where they live now: in the attached builder's recording core, else here.
    private func updateSettings<T>(_ change: (inout CollectionSettings) -> T) -> T {
        if let builder = locked({ $0.builder }) {
            return builder.updateCollection(change)
        }
        return locked { change(&$0.settings) }
    }

    /// The settings where they live now, for reading.
    private var currentSettings: CollectionSettings {
        if let builder = locked({ $0.builder }) { return builder.collectionSettings }
        return locked { $0.settings }
    }

    /// The types collected now.
    public var typesToCollect: Set<HKQuantityType> { currentSettings.types }

    /// The types the data source collects now: those of `typesToCollect` that its connected sensors give samples of,
    /// measured or, while `collectsGeneratedTypes` is on, generated (active energy from power, steps from a foot
    /// pod's step cadence). Empty until a sensor that measures one of them is attached or connected.
    /// HealthKit: HKLiveWorkoutDataSource.currentCollectedTypes.
    public var currentCollectedTypes: Set<HKQuantityType> { currentSettings.currentTypes }

    /// Whether the data source collects types it generates from other measures (true by default): active energy
    /// integrated from a power meter's watts, steps counted from a foot pod's step cadence. Turned off, only
    /// measured samples are collected, so the workout's active energy and step count are what other samples (an
    /// app's own, added to the builder) give. HealthKit: HKLiveWorkoutDataSource.collectsGeneratedTypes.
    public var collectsGeneratedTypes: Bool {
        get { currentSettings.collectsGeneratedTypes }
        set { updateSettings { $0.collectsGeneratedTypes = newValue } }
    }

    /// Collects a type, keeping only samples that match `predicate` (all when nil); calling it again replaces the
    /// predicate.
    public func enableCollection(for quantityType: HKQuantityType, predicate: NSPredicate?) {
        updateSettings { $0.enable(quantityType, predicate: predicate) }
    }

    /// Stops collecting a type.
    public func disableCollection(for quantityType: HKQuantityType) {
        updateSettings { $0.disable(quantityType) }
    }

    // MARK: Sensors (OpenHealthKit)

    /// Adds a sensor to read from, besides the paired ones. Attached while collecting, it starts at once.
    /// Sensors rank in the order they are listed (attached ones first): see `MeasurementOwners`.
    public func attach(_ sensor: any Sensor) {
        let (shouldStart, capabilities) = locked { state -> (Bool, SensorCapabilities) in
            state.explicitSensors.append(sensor)
            return (state.running, state.capabilitiesOfSensors)
        }
        updateSettings { $0.capabilities = capabilities }
        if shouldStart { start(sensor) }
    }

    /// Whether collection reads from the store's paired sensors too (default true, as an app's data source reads
    /// the person's). A replay sets it false: its sensors are the fixture's, whatever the store has paired. Set it
    /// before collection begins. OpenHealthKit extension.
    public var connectsPairedSensors: Bool {
        get { locked { $0.readsPairedSensors } }
        set { locked { $0.readsPairedSensors = newValue } }
    }

    /// The sensors read from: attached ones and the paired ones connected.
    public var sensors: [any Sensor] { locked { $0.explicitSensors + $0.connectedSensors } }

    /// The state of each sensor read from, in the order they rank (see ``HKSensorStatus``): connection, battery,
    /// skin contact, dropouts. Sensors appear once started (when collection begins, or when attached later).
    /// OpenHealthKit extension.
    public var sensorStatuses: [HKSensorStatus] { locked { $0.trackers }.map(\.status) }

    /// The sensors that delivered anything, as a finished workout keeps them (``HKWorkoutSensor``), in rank order.
    var workoutSensors: [HKWorkoutSensor] { locked { $0.trackers }.filter(\.hasDelivered).map(\.workoutSensor) }

    /// The builder takes the settings over; it hands them back when it lets go (``detach()``).
    func attach(to builder: HKLiveWorkoutBuilder) {
        let settings = locked { state -> CollectionSettings in
            state.builder = builder
            return state.settings
        }
        builder.adoptCollection(settings)
    }

    func detach() {
        stopSensors()
        let builder = locked { state -> HKLiveWorkoutBuilder? in
            defer { state.builder = nil }
            return state.builder
        }
        if let settings = builder?.collectionSettings { locked { $0.settings = settings } }
    }

    /// Connects the paired sensors through the store's connector and starts every sensor. A paired sensor that an
    /// attached one already reaches (the same identifier: `workout record --sensor` naming a paired strap) is not
    /// connected a second time: a device has one connection, and two would contend for it (the second refused as
    /// busy, or through bluetoothd its notifications already taken). The attached sensor stands for it.
    func startSensors() async {
        let attached = Set(locked { $0.explicitSensors }.map(\.identifier))
        let paired = connectsPairedSensors ? (try? await healthStore.pairedSensors()) ?? [] : []
        var connected: [any Sensor] = []
        for record in paired where !attached.contains(record.identifier) {
            do {
                connected.append(try healthStore.sensorConnector.connect(record))
            } catch {
                Self.logger.warning("Paired sensor \(record.identifier) is not available: \(error)")
            }
        }
        let (all, capabilities) = locked { state -> ([any Sensor], SensorCapabilities) in
            guard !state.running else { return ([], []) }
            state.running = true
            state.connectedSensors = connected
            return (state.explicitSensors + state.connectedSensors, state.capabilitiesOfSensors)
        }
        guard !all.isEmpty else { return }
        updateSettings { $0.capabilities = capabilities }
        for sensor in all { start(sensor) }
    }

    func stopSensors() {
        let all = locked { state -> [any Sensor] in
            guard state.running else { return [] }
            state.running = false
            return state.explicitSensors + state.connectedSensors
        }
        for sensor in all { sensor.stop() }
    }

    /// Gives the sensor a channel in the builder's recording core and sends its events there: from here on, a
    /// reading takes only the builder's lock.
    private func start(_ sensor: any Sensor) {
        guard let builder = locked({ $0.builder }) else { return }
        let channel = builder.addChannel(identifier: sensor.identifier, device: HKDevice(sensor: sensor))
        let tracker = locked { state -> SensorStatusTracker in
            if let known = state.trackers.first(where: { $0.sensor === sensor }) { return known }
            let tracker = SensorStatusTracker(sensor: sensor)
            state.trackers.append(tracker)
            return tracker
        }
        // The builder's back-pressure goes with the handler: a sensor whose producer can wait (a replay, a script)
        // awaits it after sending when the journal's writer is behind.
        let handler: @Sendable (SensorEvent) -> Void = { [weak builder] event in
            tracker.observe(event)
            if case .connection(.connected) = event.kind {
                // A BLE sensor has read its Device Information by now: its samples name the manufacturer and model.
                builder?.updateChannelDevice(channel, to: HKDevice(sensor: tracker.sensor))
            }
            builder?.received(event, channel: channel)
        }
        sensor.start(handler, backPressure: builder.backPressure)
    }
}

extension HKDevice {
    /// The device a sensor reports itself as.
    convenience init(sensor: any Sensor) {
        let info = sensor.deviceInformation
        self.init(
            name: sensor.name, manufacturer: info.manufacturerName, model: info.modelNumber,
            hardwareVersion: info.hardwareRevision, firmwareVersion: info.firmwareRevision,
            softwareVersion: info.softwareRevision, localIdentifier: sensor.identifier, udiDeviceIdentifier: nil)
    }
}
