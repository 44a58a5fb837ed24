import Foundation
import Synchronization

// Helpers for the rest of the module (package access; not HealthKit API):
//
// - `HKUnit.dimensionKey: UnitDimension` — equal keys ⇔ the units are compatible. Hashable, cheap.
// - `HKUnit.isCompatible(withUnit:)` — the same test between two units.
// - `HKUnit.convert(_:to:)` — converts a value between two compatible units (traps otherwise);
//   allocation-free, for hot loops. `HKQuantity.doubleValue(for:)` uses it.
// - `HKUnit.parse(_:)` (public) — the throwing parser; `HKUnit(from:)` traps instead.
// - `HKQuantity.unit` / `HKQuantity.value` — the stored unit and number, e.g. for persistence.
//
// Design decisions where HealthKit is silent (COMPATIBILITY.md, "Where OpenHealthKit differs", sums them up):
// - Equality is canonical: same factors, prefixes and powers after merging and cancelling, so
//   `kg/m.s^2 == kg.m^-1.s^-2` and `mL == ml`, but `kcal != Cal` and `J != kg.m^2/s^2`
//   (those are compatible, with conversion factor 1, but are different units).
// - `%` is dimensionless with factor 1, like `count`: HealthKit stores percentages as 0.0–1.0, so
//   0.5 % (one half) converts to 0.5 count.
// - `degC`, `degF`, `dBASPL` and `dBHL` are only valid alone at power 1; combining them throws from
//   `parse` and traps in `unitMultiplied(by:)` & co. `K` has no offset and combines freely (`J/K`);
//   a lone kelvin-dimensioned unit converts to `degC`/`degF` with offsets.
// - `dBASPL` is compatible with pressure: Pa = 20 µPa × 10^(dB/20).
// - Whitespace is rejected anywhere in a unit string.

/// A unit of measure: a base unit such as `kg`, or a product and quotient of units such as
/// `count/min` or `kcal/hr·kg`.
///
/// Units are immutable. Two units are equal when their canonical forms are equal (see
/// ``unitString``). Build them from strings (`HKUnit(from: "m/s^2")`) or with the named class
/// methods (`HKUnit.meter().unitDivided(by: .second())`).
///
/// HealthKit: HKUnit.
open class HKUnit: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    package let representation: UnitRepresentation
    /// Plain numbers used by conversions, kept separately so reading them never retains storage.
    package let scale: UnitScale

    package init(representation: UnitRepresentation) {
        self.representation = representation
        self.scale = representation.scale
        super.init()
    }

    /// Returns the unit described by `string`, such as `count`, `kg` or `m/s^2`.
    ///
    /// A string that is not a valid unit is a programmer error: like HealthKit, which raises
    /// `NSInvalidArgumentException`, this traps with a message saying what is wrong and where.
    /// Use ``parse(_:)`` for strings that come from users or files.
    ///
    /// Parsed strings are cached, so creating the same unit again is a dictionary lookup.
    ///
    /// HealthKit: HKUnit.init(from:).
    /// Decodes an archived unit (`NSSecureCoding`; see `Coding/SecureCoding.swift`).
    public required convenience init?(coder: NSCoder) {
        guard let unit = HKUnit.decodeUnit(coder) else { return nil }
        self.init(representation: unit.representation)
    }

    public required convenience init(from string: String) {
        var representation = UnitRepresentation.null
        do {
            representation = try UnitCache.shared.representation(for: string)
        } catch {
            hkPrecondition(false, error.message)
        }
        self.init(representation: representation)
    }

    /// Returns the unit described by `string`; traps on an invalid string, like `init(from:)` with a string.
    ///
    /// HealthKit: +[HKUnit unitFromString:].
    public class func unit(from string: String) -> Self {
        self.init(from: string)
    }

    /// Parses a unit string, throwing instead of trapping (OpenHealthKit).
    ///
    /// - Throws: ``HKError`` with code `.errorInvalidArgument` and a message naming the string, the
    ///   offset of the problem and what was expected.
    public static func parse(_ string: String) throws(HKError) -> HKUnit {
        HKUnit(representation: try UnitCache.shared.representation(for: string))
    }

    /// The canonical spelling of the unit; `HKUnit(from: unit.unitString) == unit` always holds.
    ///
    /// Factors are sorted and joined by `·`, with at most one `/` and positive powers after it
    /// (`"count/min"`, `"m/s^2"`, `"kcal/hr·kg"`, `"mmol<180.15588000005408>/L"`). Micro is `mc`,
    /// liter is `L`. A unit with no numerator uses negative powers (`"s^-1"`); the null unit is `"()"`.
    ///
    /// HealthKit: HKUnit.unitString.
    public var unitString: String { representation.unitString }

    /// Whether this is the null (dimensionless, factorless) unit, such as `m/m`.
    ///
    /// HealthKit: HKUnit.isNull().
    public func isNull() -> Bool { representation.factors.isEmpty }

    // MARK: Unit math

    /// The product of this unit and `unit`. Traps if either is a standalone-only unit (`degC`,
    /// `degF`, `dBASPL`, `dBHL`) and the other is not the null unit.
    ///
    /// HealthKit: HKUnit.unitMultiplied(by:).
    public func unitMultiplied(by unit: HKUnit) -> HKUnit {
        combine(representation.factors + unit.representation.factors, operation: "multiply \(self) by \(unit)")
    }

    /// The quotient of this unit by `unit`.
    ///
    /// HealthKit: HKUnit.unitDivided(by:).
    public func unitDivided(by unit: HKUnit) -> HKUnit {
        combine(
            representation.factors + unit.representation.factors.map { $0.withPower(-$0.power) },
            operation: "divide \(self) by \(unit)")
    }

    /// This unit raised to an integer power; power 0 gives the null unit.
    ///
    /// HealthKit: HKUnit.unitRaised(toPower:).
    public func unitRaised(toPower power: Int) -> HKUnit {
        if power == 1 { return self }
        hkPrecondition(
            power.magnitude <= UnitRepresentation.maximumPower,
            "Cannot raise \(self) to the power \(power): powers must be within "
                + "-\(UnitRepresentation.maximumPower)…\(UnitRepresentation.maximumPower).")
        return combine(
            representation.factors.map { $0.withPower($0.power * power) },
            operation: "raise \(self) to the power \(power)")
    }

    /// The reciprocal of this unit (`s` → `s^-1`).
    ///
    /// HealthKit: HKUnit.reciprocal().
    public func reciprocal() -> HKUnit { unitRaised(toPower: -1) }

    private func combine(_ factors: [UnitFactor], operation: @autoclosure () -> String) -> HKUnit {
        var result = UnitRepresentation.null
        do {
            result = try UnitRepresentation.make(factors)
        } catch {
            hkPrecondition(false, "Cannot \(operation()): \(error.reason).")
        }
        return HKUnit(representation: result)
    }

    // MARK: NSObject

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKUnit else { return false }
        return other === self || other.representation.unitString == representation.unitString
    }

    open override var hash: Int { representation.stringHash }

    open override var description: String { representation.unitString }

    open func copy(with zone: NSZone? = nil) -> Any { self }
}

// MARK: - Package helpers

extension HKUnit {
    /// The unit's dimension; two units are compatible exactly when their keys are equal.
    package var dimensionKey: UnitDimension { scale.dimension }

    /// Whether values in this unit can be converted to `other`.
    package func isCompatible(withUnit other: HKUnit) -> Bool {
        scale.dimension == other.scale.dimension
    }

    /// Converts `value` from this unit to `unit`, trapping if they are incompatible. Allocation-free.
    @inline(__always)
    package func convert(_ value: Double, to unit: HKUnit) -> Double {
        if unit === self { return value }
        hkPrecondition(
            scale.dimension == unit.scale.dimension,
            "Cannot convert a value in \(self) to \(unit): the units are incompatible.")
        return scale.convert(value, to: unit.scale)
    }
}

// MARK: - Cache

/// Parsed unit strings, shared by every thread. Holds at most `capacity` strings so that parsing
/// arbitrary user input cannot grow it without bound; named units and the store's few units stay hot.
package final class UnitCache: Sendable {
    package static let shared = UnitCache()
    package static let capacity = 4096

    private let entries = Mutex<[String: UnitRepresentation]>([:])

    package func representation(for string: String) throws(HKError) -> UnitRepresentation {
        if let cached = entries.withLock({ $0[string] }) { return cached }
        let parsed = try UnitParser.parse(string)
        entries.withLock { entries in
            if entries.count < Self.capacity { entries[string] = parsed }
        }
        return parsed
    }
}
