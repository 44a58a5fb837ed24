import FitnessSensors
import Foundation
import Logging

/// Collects live samples for a workout builder from the person's sensors.
///
/// It reads from the sensors paired with the store (`HKHealthStore.pairSensor`, as a strap is paired in Settings),
/// connected through the registered ``SensorConnectors``, and from sensors attached explicitly (tests, replays).
/// `typesToCollect` follows the current activity (see `CollectionPlan` for the table) and the capabilities of the
/// sensors — until the app calls `enableCollection(for:predicate:)` or `disableCollection(for:)`: from then on the
/// set is the app's and activity changes leave it alone, as HealthKit documents. Readings become samples of the types collected, pass the type's predicate, and are
/// associated with the workout and the activity in progress; readings of other types are dropped, and nothing is
/// collected while the session is paused. A sensor that goes silent or disconnects produces no values.
///
/// HealthKit: HKLiveWorkoutDataSource.
public final class HKLiveWorkoutDataSource: NSObject, @unchecked Sendable {
    static let logger = Logger(label: "OpenHealthKit.HKLiveWorkoutDataSource")

    let healthStore: HKHealthStore
    private let lock = NSLock()
    private var activity: HKWorkoutActivityType
    private var predicates: [HKQuantityType: NSPredicate] = [:]
    /// The app's own set, once it has changed what is collected; nil while HealthKit's defaults apply.
    private var explicitTypes: Set<HKQuantityType>?
    private var explicitSensors: [any Sensor] = []
    private var connectedSensors: [any Sensor] = []
    private var channels: [String: Channel] = [:]
    /// `typesToCollect`, computed when something it depends on changes rather than per reading.
    private var typesCache: Set<HKQuantityType>?
    /// The same set for the hot path, indexed by type code.
    private var collectedCodes: [Bool] = []

    /// Whether a type is collected; `currentTypes()` must have run since the last change.
    private func collects(_ code: UInt16) -> Bool {
        Int(code) < collectedCodes.count && collectedCodes[Int(code)]
    }

    /// What the data source keeps per sensor; touched only under the data source's lock.
    private final class Channel: @unchecked Sendable {
        let identifier: String
        /// The sensor's device, as its samples name it.
        let deviceCode: UInt32
        var mapper = ReadingMapper()
        init(identifier: String, device: HKDevice) {
            self.identifier = identifier
            self.deviceCode = DeviceCodes.code(for: device)
        }
    }
    private weak var builder: HKLiveWorkoutBuilder?
    private var running = false
    private var heartbeats = HeartbeatCollector()

    public init(healthStore: HKHealthStore, workoutConfiguration configuration: HKWorkoutConfiguration?) {
        self.healthStore = healthStore
        self.activity = configuration?.activityType ?? .other
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The types collected now.
    public var typesToCollect: Set<HKQuantityType> { locked { currentTypes() } }

    private func currentTypes() -> Set<HKQuantityType> {
        if let typesCache { return typesCache }
        let types: Set<HKQuantityType>
        if let explicitTypes {
            types = explicitTypes
        } else {
            let capabilities = (explicitSensors + connectedSensors).reduce(SensorCapabilities()) { $0.union($1.capabilities) }
            types = CollectionPlan.types(for: activity, sensors: capabilities)
        }
        typesCache = types
        collectedCodes = Array(repeating: false, count: QuantityTypeCatalog.byCode.count)
        for type in types { collectedCodes[Int(type.code)] = true }
        return types
    }

    /// Collects a type, keeping only samples that match `predicate` (all when nil); calling it again replaces the
    /// predicate.
    public func enableCollection(for quantityType: HKQuantityType, predicate: NSPredicate?) {
        locked {
            var types = currentTypes()
            types.insert(quantityType)
            explicitTypes = types
            typesCache = nil
            predicates[quantityType] = predicate
        }
    }

    /// Stops collecting a type.
    public func disableCollection(for quantityType: HKQuantityType) {
        locked {
            var types = currentTypes()
            types.remove(quantityType)
            explicitTypes = types
            typesCache = nil
            predicates.removeValue(forKey: quantityType)
        }
    }

    // MARK: Sensors (OpenHealthKit)

    /// Adds a sensor to read from, besides the paired ones. Attached while collecting, it starts at once.
    public func attach(_ sensor: any Sensor) {
        let shouldStart = locked { () -> Bool in
            explicitSensors.append(sensor)
            typesCache = nil
            return running
        }
        if shouldStart { start(sensor) }
    }

    /// The sensors read from: attached ones and the paired ones connected.
    public var sensors: [any Sensor] { locked { explicitSensors + connectedSensors } }

    func attach(to builder: HKLiveWorkoutBuilder) {
        locked { self.builder = builder }
    }

    func detach() {
        stopSensors()
        locked { builder = nil }
    }

    func activityDidChange(to configuration: HKWorkoutConfiguration) {
        locked {
            activity = configuration.activityType
            typesCache = nil
            for channel in channels.values { channel.mapper.reset() }
        }
    }

    /// Connects the paired sensors and starts every sensor.
    func startSensors() {
        let paired = (try? healthStore.pairedSensors()) ?? []
        var connected: [any Sensor] = []
        for record in paired {
            do {
                connected.append(try SensorConnectors.connect(record))
            } catch {
                Self.logger.warning("Paired sensor \(record.identifier) is not available: \(error)")
            }
        }
        let all = locked { () -> [any Sensor] in
            guard !running else { return [] }
            running = true
            connectedSensors = connected
            typesCache = nil
            return explicitSensors + connectedSensors
        }
        for sensor in all { start(sensor) }
    }

    func stopSensors() {
        let all = locked { () -> [any Sensor] in
            guard running else { return [] }
            running = false
            return explicitSensors + connectedSensors
        }
        for sensor in all { sensor.stop() }
    }

    private func start(_ sensor: any Sensor) {
        let channel = Channel(identifier: sensor.identifier, device: HKDevice(sensor: sensor))
        locked { channels[channel.identifier] = channel }
        sensor.start { [weak self] event in self?.receive(event, on: channel) }
    }

    /// Handles one event from a sensor identified by `identifier` (tests and replays). OpenHealthKit.
    func receive(_ event: SensorEvent, from identifier: String) {
        guard let channel = locked({ channels[identifier] }) else { return }
        receive(event, on: channel)
    }

    /// Handles one event from a sensor: the hot path of a live workout. One pass under the lock maps the reading;
    /// the builder takes the samples under its own.
    private func receive(_ event: SensorEvent, on channel: Channel) {
        var samples: [CollectedSample] = []
        var beats: [HeartbeatCollector.Beat] = []
        let target = locked { () -> HKLiveWorkoutBuilder? in
            switch event.kind {
            case .connection(let state):
                if case .disconnected = state {
                    channel.mapper.reset()
                    heartbeats.gap(sensor: channel.identifier)
                }
                return nil
            case .reading(let value):
                guard let builder = self.builder, builder.acceptsLiveData else { return nil }
                let time = event.timestamp.storeValue
                channel.mapper.samples(for: value, at: time, activity: activity, deviceCode: channel.deviceCode, into: &samples)
                if typesCache == nil { _ = currentTypes() }
                if case .heartRate(let reading) = value, !reading.rrIntervals.isEmpty,
                   collects(ReadingMapper.Types.heartRate) {
                    beats = heartbeats.add(reading.rrIntervals, arrivedAt: time, sensor: channel.identifier)
                }
                if samples.contains(where: { !collects($0.typeCode) }) { samples.removeAll { !collects($0.typeCode) } }
                // Energy integrated from power counts only while power itself is collected (not from a meter
                // left on during a swim).
                if case .power = value, !collects(ReadingMapper.Types.cyclingPower) { samples.removeAll() }
                if !predicates.isEmpty {
                    samples.removeAll { sample in
                        guard let predicate = predicates[sample.type] else { return false }
                        return !predicate.evaluate(with: sample.object())
                    }
                }
                return builder
            }
        }
        guard let builder = target else { return }
        do {
            if !samples.isEmpty { try builder.collect(samples, appAdded: false) }
            if !beats.isEmpty { try builder.collectHeartbeats(beats) }
        } catch {
            Self.logger.error("Could not record samples: \(error)")
        }
    }
}

extension HKDevice {
    /// The device a sensor reports itself as.
    convenience init(sensor: any Sensor) {
        let info = sensor.deviceInformation
        self.init(name: sensor.name, manufacturer: info.manufacturerName, model: info.modelNumber,
                  hardwareVersion: info.hardwareRevision, firmwareVersion: info.firmwareRevision,
                  softwareVersion: info.softwareRevision, localIdentifier: sensor.identifier, udiDeviceIdentifier: nil)
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
