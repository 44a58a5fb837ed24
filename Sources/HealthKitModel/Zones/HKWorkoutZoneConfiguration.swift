import Foundation

/// A complete set of zones for heart rate or cycling power.
///
/// Made from ascending *upper* thresholds: N boundaries make N + 1 contiguous zones, the first without a lower
/// bound and the last without an upper bound. A configuration has 3 to 9 zones (2 to 8 boundaries). Zones are
/// half-open, `[minimum, maximum)`.
///
/// ```swift
/// let bpm = HKUnit(from: "count/min")
/// let zones = try HKWorkoutZoneConfiguration(
///     quantityType: HKQuantityType(.heartRate),
///     zoneBoundaries: [136.8, 147.6, 158.4, 169.2].map { HKQuantity(unit: bpm, doubleValue: $0) })
/// zones.zones.count   // 5
/// zones.source        // .app
/// ```
///
/// HealthKit: HKWorkoutZoneConfiguration.
public struct HKWorkoutZoneConfiguration: Sendable, Hashable {
    /// Where a configuration comes from.
    ///
    /// HealthKit: HKWorkoutZoneConfiguration.Source.
    public enum Source: Codable, Hashable, Sendable {
        /// Generated from the person's health metrics (see `HKHealthStore.preferredWorkoutZoneConfiguration(for:)`).
        case system
        /// Set by the person (in OpenHealthKit: `HKHealthStore.setWorkoutProfile(_:)` or `workout zones --set`).
        case user
        /// Given by an app for one workout (`HKWorkoutBuilder.setCustomZoneConfiguration(_:for:)`).
        case app
    }

    /// The quantity type the zones divide: heart rate or cycling power.
    public let quantityType: HKQuantityType
    /// The zones, lowest to highest, contiguous.
    public let zones: [HKWorkoutZone]
    /// Where the configuration comes from.
    public let source: Source
    /// The upper thresholds in the type's storage unit (count/min, W): what the zone engine compares with.
    package let boundaryValues: [Double]

    /// The quantity types that have zones.
    package static let zonedTypes: [HKQuantityType] = [HKQuantityType(.heartRate), HKQuantityType(.cyclingPower)]
    /// How many zones a configuration may have.
    package static let zoneCountRange = 3 ... 9

    /// Makes a configuration from upper thresholds, lowest first; its source is `.app`.
    ///
    /// - Throws: `HKError.errorInvalidArgument` saying which rule the input breaks: the type has no zones (only
    ///   heart rate and cycling power do); fewer than 2 or more than 8 boundaries (3 to 9 zones); a boundary in a
    ///   unit incompatible with the type, not a positive finite number, or not above the one before it.
    ///
    /// HealthKit: HKWorkoutZoneConfiguration.init(quantityType:zoneBoundaries:).
    public init(quantityType: HKQuantityType, zoneBoundaries: [HKQuantity]) throws {
        try Self.checkType(quantityType)
        let unit = quantityType.storageUnit
        for boundary in zoneBoundaries where !boundary.is(compatibleWith: unit) {
            throw HKError(
                .errorInvalidArgument,
                "The zone boundary \(boundary) is not compatible with "
                    + "\(Self.name(of: quantityType)), which is measured in \(unit.unitString).")
        }
        let values = zoneBoundaries.map { $0.doubleValue(for: unit) }
        try self.init(
            quantityType: quantityType, boundaryValues: values, source: .app, units: zoneBoundaries.map(\.unit))
    }

    /// A configuration from thresholds already in the type's storage unit.
    package init(quantityType: HKQuantityType, boundaryValues: [Double], source: Source, units: [HKUnit]? = nil) throws
    {
        try Self.checkType(quantityType)
        try Self.check(boundaryValues, of: quantityType)
        self.quantityType = quantityType
        self.source = source
        self.boundaryValues = boundaryValues
        let storage = quantityType.storageUnit
        // Each threshold is shown in the unit it was given in; a zone's minimum is the previous zone's maximum.
        let quantities = boundaryValues.enumerated().map { index, value in
            let unit = units?[index] ?? storage
            return HKQuantity(
                unit: unit,
                doubleValue: unit == storage
                    ? value : HKQuantity(unit: storage, doubleValue: value).doubleValue(for: unit))
        }
        self.zones = (0 ... boundaryValues.count).map { index in
            HKWorkoutZone(
                index: index, minimum: index == 0 ? nil : quantities[index - 1],
                maximum: index == boundaryValues.count ? nil : quantities[index])
        }
    }

    /// The same zones with another source.
    package func with(source: Source) -> HKWorkoutZoneConfiguration {
        // The thresholds were checked when this configuration was made.
        try! HKWorkoutZoneConfiguration(
            quantityType: quantityType, boundaryValues: boundaryValues, source: source,
            units: zones.dropLast().map { $0.maximum?.unit ?? quantityType.storageUnit })
    }

    public static func == (lhs: HKWorkoutZoneConfiguration, rhs: HKWorkoutZoneConfiguration) -> Bool {
        lhs.quantityType == rhs.quantityType && lhs.source == rhs.source && lhs.boundaryValues == rhs.boundaryValues
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(quantityType)
        hasher.combine(source)
        hasher.combine(boundaryValues)
    }

    private static func checkType(_ type: HKQuantityType) throws {
        guard zonedTypes.contains(type) else {
            throw HKError(
                .errorInvalidArgument,
                "Workout zones exist for heart rate and cycling power only, not for \(type.identifier).")
        }
    }

    /// Checks thresholds in the storage unit: 2…8 of them, positive, finite, strictly ascending.
    package static func check(_ values: [Double], of type: HKQuantityType) throws {
        let boundaries = zoneCountRange.lowerBound - 1 ... zoneCountRange.upperBound - 1
        guard boundaries.contains(values.count) else {
            throw HKError(
                .errorInvalidArgument,
                "A zone configuration has 3 to 9 zones, so 2 to 8 boundaries; "
                    + "\(values.count) boundar\(values.count == 1 ? "y makes" : "ies make") \(values.count + 1).")
        }
        // As HKQuantity writes itself: "120 count/min", "137.5 W".
        func quantity(_ value: Double) -> String { HKQuantity(unit: type.storageUnit, doubleValue: value).description }
        for (index, value) in values.enumerated() {
            guard value.isFinite, value > 0 else {
                throw HKError(
                    .errorInvalidArgument,
                    "Zone boundaries must be positive numbers; boundary \(index + 1) is \(quantity(value)).")
            }
            if index > 0, value <= values[index - 1] {
                throw HKError(
                    .errorInvalidArgument,
                    "Zone boundaries must be strictly ascending; boundary \(index + 1) "
                        + "(\(quantity(value))) is not above boundary \(index) (\(quantity(values[index - 1]))).")
            }
        }
    }

    package static func name(of type: HKQuantityType) -> String {
        type == HKQuantityType(.heartRate)
            ? "heart rate" : type == HKQuantityType(.cyclingPower) ? "cycling power" : type.identifier
    }
}

extension HKWorkoutZoneConfiguration.Source {
    /// The number the store and the journal keep for a source (never reused: both outlive this code).
    package var storeCode: Int {
        switch self {
        case .system: 0
        case .user: 1
        case .app: 2
        }
    }

    /// The source a stored number names; nil for an unknown number.
    package init?(storeCode: Int) {
        guard let source = [0: Self.system, 1: .user, 2: .app][storeCode] else { return nil }
        self = source
    }
}
