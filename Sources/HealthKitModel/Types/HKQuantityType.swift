import Foundation

/// How values of a quantity type combine. HealthKit: HKQuantityAggregationStyle (raw values as Apple's).
public enum HKQuantityAggregationStyle: Int, Sendable, Hashable {
    /// Values add up (energy, distance, steps).
    case cumulative = 0
    /// Values average with a plain mean (power, cadence, speed).
    case discreteArithmetic = 1
    /// Values average weighted by time (heart rate).
    case discreteTemporallyWeighted = 2
    /// Sound levels averaged as an equivalent continuous level.
    case discreteEquivalentContinuousLevel = 3

    /// The older spelling of `discreteArithmetic`.
    @available(*, deprecated, renamed: "discreteArithmetic")
    public static var discrete: HKQuantityAggregationStyle { .discreteArithmetic }

    /// Whether the style is one of the discrete ones.
    package var isDiscrete: Bool { self != .cumulative }
}

/// A type of quantity sample: heart rate, active energy, cycling power…
///
/// Created with `HKQuantityType(.heartRate)` or `HKObjectType.quantityType(forIdentifier: .heartRate)`;
/// both give equal objects. Each type has an aggregation style and a unit dimension: a sample's unit must be
/// compatible with its type (`is(compatibleWith:)`).
///
/// HealthKit: HKQuantityType.
public final class HKQuantityType: HKSampleType, @unchecked Sendable {
    package let entry: QuantityTypeCatalog.Entry

    /// The type for a HealthKit identifier. Traps for an identifier HealthKit does not define here.
    public convenience init(_ identifier: HKQuantityTypeIdentifier) {
        guard let entry = QuantityTypeCatalog.entry(for: identifier.rawValue) else {
            fatalError("OpenHealthKit: unknown quantity type identifier \(identifier.rawValue)")
        }
        self.init(entry: entry)
    }

    public required convenience init?(coder: NSCoder) {
        guard let identifier = SecureCoding.decodeString(coder, "identifier"),
            let entry = QuantityTypeCatalog.entry(for: identifier)
        else {
            SecureCoding.fail(coder, "an HKQuantityType")
            return nil
        }
        self.init(entry: entry)
    }

    package init(entry: QuantityTypeCatalog.Entry) {
        self.entry = entry
        super.init(identifier: entry.identifier)
    }

    /// How values of this type combine in statistics.
    public var aggregationStyle: HKQuantityAggregationStyle { entry.style }

    /// Whether a quantity in `unit` may be stored as this type.
    public func `is`(compatibleWith unit: HKUnit) -> Bool {
        unit.isCompatible(withUnit: entry.unit)
    }

    public override var isMaximumDurationRestricted: Bool { entry.maximumDuration != nil }
    public override var maximumAllowedDuration: TimeInterval { entry.maximumDuration ?? .infinity }

    /// The unit values of this type are stored in (OpenHealthKit; HealthKit keeps its own canonical unit private).
    public var storageUnit: HKUnit { entry.unit }

    /// The `HKQuantityTypeIdentifier` of this type.
    package var quantityTypeIdentifier: HKQuantityTypeIdentifier { HKQuantityTypeIdentifier(rawValue: identifier) }

    /// The type's small code (its place in the catalog), the same for every instance of the type.
    package var code: UInt16 { entry.code }

    /// The shared instance for a code.
    package static func forCode(_ code: UInt16) -> HKQuantityType { QuantityTypeCatalog.byCode[Int(code)] }
}

extension HKQuantityType {
    /// The catalog's shared instance for an identifier (traps, as `init(_:)` does, for one it does not define).
    package static func interned(_ identifier: HKQuantityTypeIdentifier) -> HKQuantityType {
        QuantityTypeCatalog.entry(for: identifier.rawValue).map { forCode($0.code) } ?? HKQuantityType(identifier)
    }

    /// The quantity type for an identifier string, if it is one this store knows (for decoding stored rows
    /// and user input).
    package static func known(_ identifier: String) -> HKQuantityType? {
        QuantityTypeCatalog.entry(for: identifier).map { HKQuantityType(entry: $0) }
    }
}

/// The table of quantity types: identifier, storage unit, aggregation style.
///
/// The storage unit is the unit a type's values are written to the store in; it is chosen to be the unit
/// samples of that type most often arrive in (bpm for heart rate), so the common case round-trips exactly.
package enum QuantityTypeCatalog {
    package struct Entry: Sendable {
        package let identifier: String
        package let unitString: String
        package let style: HKQuantityAggregationStyle
        package let unit: HKUnit
        package let maximumDuration: TimeInterval?
        /// The entry's place in `all`: the small code collected samples carry instead of a reference.
        package var code: UInt16 = 0
    }

    package static func entry(for identifier: String) -> Entry? { table[identifier] }

    package static let all: [Entry] = {
        typealias I = HKQuantityTypeIdentifier
        func e(_ i: I, _ unit: String, _ style: HKQuantityAggregationStyle, max: TimeInterval? = nil) -> Entry {
            Entry(
                identifier: i.rawValue, unitString: unit, style: style, unit: HKUnit(from: unit), maximumDuration: max)
        }
        let entries = [
            e(.heartRate, "count/min", .discreteTemporallyWeighted),
            e(.restingHeartRate, "count/min", .discreteArithmetic),
            e(.walkingHeartRateAverage, "count/min", .discreteArithmetic),
            e(.heartRateRecoveryOneMinute, "count/min", .discreteArithmetic),
            e(.heartRateVariabilitySDNN, "ms", .discreteArithmetic),
            e(.respiratoryRate, "count/min", .discreteArithmetic),
            e(.oxygenSaturation, "%", .discreteArithmetic),
            e(.vo2Max, "mL/kg*min", .discreteArithmetic),
            e(.bodyTemperature, "degC", .discreteArithmetic),
            e(.activeEnergyBurned, "kcal", .cumulative),
            e(.basalEnergyBurned, "kcal", .cumulative),
            e(.distanceWalkingRunning, "m", .cumulative),
            e(.distanceCycling, "m", .cumulative),
            e(.distanceSwimming, "m", .cumulative),
            e(.distanceWheelchair, "m", .cumulative),
            e(.distanceDownhillSnowSports, "m", .cumulative),
            e(.distanceCrossCountrySkiing, "m", .cumulative),
            e(.distancePaddleSports, "m", .cumulative),
            e(.distanceRowing, "m", .cumulative),
            e(.distanceSkatingSports, "m", .cumulative),
            e(.swimmingStrokeCount, "count", .cumulative),
            e(.stepCount, "count", .cumulative),
            e(.flightsClimbed, "count", .cumulative),
            e(.pushCount, "count", .cumulative),
            e(.appleExerciseTime, "min", .cumulative),
            e(.appleMoveTime, "min", .cumulative),
            e(.appleStandTime, "min", .cumulative),
            e(.cyclingPower, "W", .discreteArithmetic),
            e(.cyclingFunctionalThresholdPower, "W", .discreteArithmetic),
            e(.cyclingCadence, "count/min", .discreteArithmetic),
            e(.cyclingSpeed, "m/s", .discreteArithmetic),
            e(.runningPower, "W", .discreteArithmetic),
            e(.runningSpeed, "m/s", .discreteArithmetic),
            e(.runningStrideLength, "m", .discreteArithmetic),
            e(.runningVerticalOscillation, "cm", .discreteArithmetic),
            e(.runningGroundContactTime, "ms", .discreteArithmetic),
            e(.walkingSpeed, "m/s", .discreteArithmetic),
            e(.walkingStepLength, "m", .discreteArithmetic),
            e(.crossCountrySkiingSpeed, "m/s", .discreteArithmetic),
            e(.paddleSportsSpeed, "m/s", .discreteArithmetic),
            e(.rowingSpeed, "m/s", .discreteArithmetic),
            e(.physicalEffort, "kcal/hr·kg", .discreteArithmetic),
            e(.workoutEffortScore, "appleEffortScore", .discreteArithmetic),
            e(.estimatedWorkoutEffortScore, "appleEffortScore", .discreteArithmetic),
            e(.underwaterDepth, "m", .discreteArithmetic),
            e(.waterTemperature, "degC", .discreteArithmetic),
            e(.bodyMass, "kg", .discreteArithmetic),
            e(.leanBodyMass, "kg", .discreteArithmetic),
            e(.height, "cm", .discreteArithmetic),
            e(.bodyFatPercentage, "%", .discreteArithmetic),
            e(.environmentalAudioExposure, "dBASPL", .discreteEquivalentContinuousLevel),
            e(.headphoneAudioExposure, "dBASPL", .discreteEquivalentContinuousLevel),
            e(.timeInDaylight, "min", .cumulative),
            // Codes are positions: new types are appended, never inserted.
            e(.stairAscentSpeed, "m/s", .discreteArithmetic),
            e(.stairDescentSpeed, "m/s", .discreteArithmetic),
            e(.walkingAsymmetryPercentage, "%", .discreteArithmetic),
            e(.walkingDoubleSupportPercentage, "%", .discreteArithmetic),
            e(.sixMinuteWalkTestDistance, "m", .discreteArithmetic),
            e(.nikeFuel, "count", .cumulative),
            e(.dietaryEnergyConsumed, "kcal", .cumulative),
        ]
        return entries.enumerated().map { index, entry in
            var entry = entry
            entry.code = UInt16(index)
            return entry
        }
    }()

    package static let table: [String: Entry] = Dictionary(uniqueKeysWithValues: all.map { ($0.identifier, $0) })
    /// One shared instance per type, indexed by code.
    package static let byCode: [HKQuantityType] = all.map { HKQuantityType(entry: $0) }
}
