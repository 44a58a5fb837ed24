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

    /// Whether a quantity in `unit` may be stored as this type: the unit has the dimension of the type's canonical
    /// unit (mass for `dietaryProtein`, volume for `dietaryWater`, mass per volume or amount per volume for
    /// `bloodGlucose`).
    public func `is`(compatibleWith unit: HKUnit) -> Bool {
        unit.isCompatible(withUnit: entry.canonicalUnit)
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

/// The table of quantity types: identifier, storage unit, Apple's canonical unit, aggregation style.
///
/// The storage unit is the unit a type's values are written to the store in; for the types stored before the whole
/// catalogue it is the unit samples of that type most often arrive in (bpm for heart rate), so the common case
/// round-trips exactly (`scripts/healthkit-catalog/storage-units.txt`); for the others it is Apple's canonical unit.
package enum QuantityTypeCatalog {
    package struct Entry: Sendable {
        package let identifier: String
        package let unitString: String
        package let style: HKQuantityAggregationStyle
        package let unit: HKUnit
        /// Apple's canonical unit (the header's comment); a sample's unit must share its dimension.
        package let canonicalUnit: HKUnit
        package let maximumDuration: TimeInterval?
        /// The entry's place in `all`: the small code collected samples carry instead of a reference.
        package let code: UInt16
    }

    package static func entry(for identifier: String) -> Entry? { table[identifier] }

    /// Every quantity type of HealthKit's SDK (`GeneratedCatalog`, from the headers), in their codes' order: the
    /// types stored before the whole catalogue first, in their old order, so a code keeps naming the same type.
    package static let all: [Entry] = GeneratedCatalog.quantityTypes.enumerated().map { index, row in
        let (identifier, storage, canonical, style) = row
        return Entry(
            identifier: identifier, unitString: storage, style: style, unit: HKUnit(from: storage),
            canonicalUnit: HKUnit(from: canonical), maximumDuration: nil, code: UInt16(index))
    }

    package static let table: [String: Entry] = Dictionary(uniqueKeysWithValues: all.map { ($0.identifier, $0) })
    /// One shared instance per type, indexed by code.
    package static let byCode: [HKQuantityType] = all.map { HKQuantityType(entry: $0) }
}
