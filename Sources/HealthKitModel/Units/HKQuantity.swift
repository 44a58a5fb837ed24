import Foundation

/// An amount in a unit, such as 72 count/min or 5 km. Immutable.
///
/// Ask for the value in any compatible unit with ``doubleValue(for:)``; asking for an
/// incompatible unit is a programmer error and traps, as HealthKit raises an exception. Use
/// ``convertedValue(to:)`` when the unit comes from input.
///
/// Two quantities are equal when their units are compatible and each converts exactly to the
/// other's value (so 1 km equals 1000 m, and 100 degC equals 212 degF).
///
/// HealthKit: HKQuantity.
open class HKQuantity: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// The unit the quantity was created with (OpenHealthKit; HealthKit keeps it private).
    package let unit: HKUnit
    /// The number the quantity was created with, in ``unit`` (OpenHealthKit).
    package let value: Double

    /// Creates a quantity of `value` in `unit`.
    ///
    /// HealthKit: HKQuantity.init(unit:doubleValue:).
    public init(unit: HKUnit, doubleValue value: Double) {
        self.unit = unit
        self.value = value
        super.init()
    }

    /// Decodes an archived quantity (`NSSecureCoding`; see `Coding/SecureCoding.swift`).
    public required convenience init?(coder: NSCoder) {
        guard let (unit, value) = HKQuantity.decodeFields(coder) else { return nil }
        self.init(unit: unit, doubleValue: value)
    }

    /// Whether the quantity can be expressed in `unit`.
    ///
    /// HealthKit: HKQuantity.is(compatibleWith:) (`isCompatibleWithUnit:`).
    public func `is`(compatibleWith unit: HKUnit) -> Bool {
        self.unit.scale.dimension == unit.scale.dimension
    }

    /// OpenHealthKit's former spelling of `is(compatibleWith:)`; kept one release.
    @available(*, deprecated, renamed: "is(compatibleWith:)")
    public func isCompatible(with unit: HKUnit) -> Bool { self.is(compatibleWith: unit) }

    /// The quantity's value in `unit`. Traps if `unit` is incompatible with the quantity's unit.
    ///
    /// Conversion is arithmetic on numbers precomputed when the units were created: it takes no
    /// lock and allocates nothing.
    ///
    /// HealthKit: HKQuantity.doubleValue(for:).
    public func doubleValue(for unit: HKUnit) -> Double {
        if unit === self.unit { return value }
        hkPrecondition(
            self.unit.scale.dimension == unit.scale.dimension,
            "Cannot express \(self) in \(unit): the units are incompatible.")
        return self.unit.scale.convert(value, to: unit.scale)
    }

    /// The quantity's value in `unit`, throwing instead of trapping (OpenHealthKit).
    ///
    /// - Throws: ``HKError`` `.errorInvalidArgument` if `unit` is incompatible.
    public func convertedValue(to unit: HKUnit) throws(HKError) -> Double {
        guard self.is(compatibleWith: unit) else {
            throw HKError(
                .errorInvalidArgument,
                "Cannot express \(self) in \(unit): the units are incompatible.")
        }
        return doubleValue(for: unit)
    }

    /// Orders this quantity against another with a compatible unit, comparing in this quantity's
    /// unit. Traps if the units are incompatible.
    ///
    /// HealthKit: HKQuantity.compare(_:).
    public func compare(_ quantity: HKQuantity) -> ComparisonResult {
        hkPrecondition(
            self.is(compatibleWith: quantity.unit),
            "Cannot compare \(self) with \(quantity): the units are incompatible.")
        let other = quantity.doubleValue(for: unit)
        if value < other { return .orderedAscending }
        if value > other { return .orderedDescending }
        return .orderedSame
    }

    // MARK: NSObject

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKQuantity else { return false }
        if other === self { return true }
        if other.unit == unit { return other.value == value }
        guard self.is(compatibleWith: other.unit) else { return false }
        return other.doubleValue(for: unit) == value && doubleValue(for: other.unit) == other.value
    }

    /// Hashes the dimension only: equal quantities may be written in different units, and a
    /// value-based hash could not survive conversion rounding.
    open override var hash: Int { unit.scale.dimension.hashValue }

    /// The value and the unit string, e.g. `"72 count/min"` or `"0.5 %"`.
    open override var description: String {
        let number = value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
        return "\(number) \(unit.unitString)"
    }

    open func copy(with zone: NSZone? = nil) -> Any { self }
}
