import FitnessSensors
import Foundation
import HealthKitModel

/// What a live workout screen shows at one instant, read from a live builder through the API a HealthKit app uses
/// (`statistics(for:)`, `elapsedTime(at:)`, `workoutEvents`, `zoneGroup(for:)`, the data source's sensor statuses),
/// and encoded to travel to a mirrored session with `sendToRemoteWorkoutSession(data:)`. OpenHealthKit.
///
/// Apple's multidevice sample sends archived `HKStatistics` the same way; this value carries what a companion needs
/// to draw the primary's live view (`workout watch`). The encoding is JSON with a version field; ``init(data:)``
/// refuses anything else with one sentence.
public struct LiveWorkoutFigures: Sendable, Equatable {
    /// The most recent value of one collected type.
    public struct Value: Sendable, Equatable {
        public var quantityType: HKQuantityType
        public var quantity: HKQuantity
        /// When the value was measured (the start of its sample).
        public var date: Date

        package init(quantityType: HKQuantityType, quantity: HKQuantity, date: Date) {
            self.quantityType = quantityType
            self.quantity = quantity
            self.date = date
        }
    }

    /// When these figures were read.
    public var date: Date
    /// The builder's start date (collection began).
    public var startDate: Date?
    /// The builder's `elapsedTime(at: date)`: time not paused.
    public var elapsedTime: TimeInterval
    /// The builder's `elapsedTime` at the end of the last lap event (0 before the first lap).
    public var elapsedTimeAtLastLap: TimeInterval
    /// How many lap events the builder holds.
    public var laps: Int
    /// The types the data source collects.
    public var collectedTypes: Set<HKQuantityType>
    /// The most recent value of each collected type that has one.
    public var mostRecent: [HKQuantityType: Value]
    /// Time in each heart-rate zone so far (the builder's running zone group), or nil without zones.
    public var heartRateZones: [HKWorkoutZoneDuration]?
    /// The builder's 3-second power at ``date`` (``HKLiveWorkoutBuilder/threeSecondPower(at:)``), or nil.
    public var threeSecondPower: HKQuantity?
    /// A run's cadence at ``date`` (``HKLiveWorkoutBuilder/runningCadence(at:)``), or nil.
    public var runningCadence: HKQuantity?
    /// The sensors' statuses.
    public var sensors: [HKSensorStatus]
    /// The plan running, when one is: the step's figures (``PlanRunner/Status``).
    public var plan: PlanRunner.Status? = nil

    /// The figures as bytes for `sendToRemoteWorkoutSession(data:)`.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Every field is a plain number, string or array: encoding cannot fail.
        return (try? encoder.encode(Wire(self))) ?? Data()
    }

    /// Decodes figures a primary sent.
    ///
    /// - Throws: `errorInvalidArgument` with one sentence when the bytes are not figures of this version.
    public init(data: Data) throws {
        let wire: Wire
        do { wire = try JSONDecoder().decode(Wire.self, from: data) } catch {
            throw HKError(
                .errorInvalidArgument,
                "The data received is not live workout figures (\(data.count) bytes that do not decode).")
        }
        guard wire.version == Wire.version else {
            throw HKError(
                .errorInvalidArgument,
                "The live workout figures are of version \(wire.version); this build reads version \(Wire.version).")
        }
        self = try wire.figures()
    }

    /// The JSON shape: plain values, identifiers and unit strings.
    private struct Wire: Codable {
        package static let version = 1
        package struct Value: Codable {
            package var type: String
            package var unit: String
            package var value: Double
            package var date: Date
        }
        package struct Zone: Codable {
            package var minimum: Double?
            package var maximum: Double?
            package var unit: String
            package var duration: TimeInterval
        }
        package struct Sensor: Codable {
            package var identifier: String, name: String, capabilities: UInt16
            /// connecting, connected, lost, reconnecting
            package var connection: String
            package var since: Date?, attempt: Int?, reason: String?
            package var batteryPercent: Int?, skinContact: Bool?, dropouts: Int, malformedNotifications: Int
            package var problem: String?, closedDropoutTime: TimeInterval
        }
        package var version = Wire.version
        package var date: Date, startDate: Date?, elapsedTime: TimeInterval, elapsedTimeAtLastLap: TimeInterval,
            laps: Int
        package var collectedTypes: [String], mostRecent: [Value], heartRateZones: [Zone]?, sensors: [Sensor]
        /// Watts; absent when there is none (and in figures from before it was carried).
        package var threeSecondPower: Double?
        /// Steps a minute; absent when there is none (and in figures from before it was carried).
        package var runningCadence: Double?
        /// The plan's figures; absent without a plan (and in figures from before it was carried).
        package var plan: PlanRunner.Status?

        package init(_ figures: LiveWorkoutFigures) {
            plan = figures.plan
            date = figures.date
            startDate = figures.startDate
            elapsedTime = figures.elapsedTime
            elapsedTimeAtLastLap = figures.elapsedTimeAtLastLap
            laps = figures.laps
            collectedTypes = figures.collectedTypes.map(\.identifier).sorted()
            threeSecondPower = figures.threeSecondPower?.doubleValue(for: .watt())
            runningCadence = figures.runningCadence?.doubleValue(for: RunningCadence.unit)
            mostRecent = figures.mostRecent.values.sorted { $0.quantityType.identifier < $1.quantityType.identifier }
                .map { value in
                    let unit = value.quantityType.storageUnit
                    return Value(
                        type: value.quantityType.identifier, unit: unit.unitString,
                        value: value.quantity.doubleValue(for: unit), date: value.date)
                }
            heartRateZones = figures.heartRateZones.map { zones in
                let unit = HKUnit.count().unitDivided(by: .minute())
                return zones.map {
                    Zone(
                        minimum: $0.zone.minimum?.doubleValue(for: unit),
                        maximum: $0.zone.maximum?.doubleValue(for: unit),
                        unit: unit.unitString, duration: $0.duration)
                }
            }
            sensors = figures.sensors.map { status in
                var sensor = Sensor(
                    identifier: status.identifier, name: status.name, capabilities: status.capabilities.rawValue,
                    connection: "connected", batteryPercent: status.batteryPercent, skinContact: status.skinContact,
                    dropouts: status.dropouts, malformedNotifications: status.malformedNotifications,
                    problem: status.problem, closedDropoutTime: status.closedDropoutTime)
                switch status.connection {
                case .connecting(let attempt): (sensor.connection, sensor.attempt) = ("connecting", attempt)
                case .connected: break
                case .lost(let since, let reason):
                    (sensor.connection, sensor.since, sensor.reason) = ("lost", since, reason)
                case .reconnecting(let since, let attempt):
                    (sensor.connection, sensor.since, sensor.attempt) = ("reconnecting", since, attempt)
                }
                return sensor
            }
        }

        package func figures() throws -> LiveWorkoutFigures {
            func bad(_ what: String) -> HKError {
                HKError(.errorInvalidArgument, "The live workout figures hold \(what).")
            }
            func quantityType(_ identifier: String) throws -> HKQuantityType {
                guard
                    let type = HKObjectType.quantityType(forIdentifier: HKQuantityTypeIdentifier(rawValue: identifier))
                else { throw bad("an unknown quantity type, \(identifier)") }
                return type
            }
            func unit(_ string: String, for type: HKQuantityType?) throws -> HKUnit {
                guard let unit = try? HKUnit.parse(string), type.map({ $0.is(compatibleWith: unit) }) ?? true else {
                    throw bad("the unit \"\(string)\", which does not fit")
                }
                return unit
            }
            var values: [HKQuantityType: LiveWorkoutFigures.Value] = [:]
            for value in mostRecent {
                let type = try quantityType(value.type)
                values[type] = .init(
                    quantityType: type,
                    quantity: HKQuantity(unit: try unit(value.unit, for: type), doubleValue: value.value),
                    date: value.date)
            }
            let zones = try heartRateZones.map { zones in
                try zones.enumerated().map { index, zone in
                    let zoneUnit = try unit(zone.unit, for: HKQuantityType(.heartRate))
                    return HKWorkoutZoneDuration(
                        zone: HKWorkoutZone(
                            index: index, minimum: zone.minimum.map { HKQuantity(unit: zoneUnit, doubleValue: $0) },
                            maximum: zone.maximum.map { HKQuantity(unit: zoneUnit, doubleValue: $0) }),
                        duration: zone.duration)
                }
            }
            let statuses = try sensors.map { sensor in
                let connection: HKSensorStatus.Connection
                switch (sensor.connection, sensor.since, sensor.attempt) {
                case ("connecting", _, let attempt?): connection = .connecting(attempt: attempt)
                case ("connected", _, _): connection = .connected
                case ("lost", let since?, _): connection = .lost(since: since, reason: sensor.reason)
                case ("reconnecting", let since?, let attempt?):
                    connection = .reconnecting(since: since, attempt: attempt)
                default: throw bad("a sensor connection \"\(sensor.connection)\" without its date or attempt")
                }
                return HKSensorStatus(
                    identifier: sensor.identifier, name: sensor.name,
                    capabilities: SensorCapabilities(rawValue: sensor.capabilities), connection: connection,
                    batteryPercent: sensor.batteryPercent, skinContact: sensor.skinContact, dropouts: sensor.dropouts,
                    malformedNotifications: sensor.malformedNotifications, problem: sensor.problem,
                    closedDropoutTime: sensor.closedDropoutTime)
            }
            var figures = LiveWorkoutFigures(
                date: date, startDate: startDate, elapsedTime: elapsedTime,
                elapsedTimeAtLastLap: elapsedTimeAtLastLap, laps: laps,
                collectedTypes: Set(try collectedTypes.map(quantityType)), mostRecent: values,
                heartRateZones: zones, sensors: statuses)
            if let watts = threeSecondPower {
                guard watts.isFinite else { throw bad("a 3-second power that is not a number") }
                figures.threeSecondPower = HKQuantity(unit: .watt(), doubleValue: watts)
            }
            if let cadence = runningCadence {
                guard cadence.isFinite else { throw bad("a running cadence that is not a number") }
                figures.runningCadence = HKQuantity(unit: RunningCadence.unit, doubleValue: cadence)
            }
            figures.plan = plan
            return figures
        }
    }

    package init(
        date: Date, startDate: Date?, elapsedTime: TimeInterval, elapsedTimeAtLastLap: TimeInterval, laps: Int,
        collectedTypes: Set<HKQuantityType>, mostRecent: [HKQuantityType: Value],
        heartRateZones: [HKWorkoutZoneDuration]?,
        sensors: [HKSensorStatus]
    ) {
        self.date = date
        self.startDate = startDate
        self.elapsedTime = elapsedTime
        self.elapsedTimeAtLastLap = elapsedTimeAtLastLap
        self.laps = laps
        self.collectedTypes = collectedTypes
        self.mostRecent = mostRecent
        self.heartRateZones = heartRateZones
        self.sensors = sensors
    }
}
