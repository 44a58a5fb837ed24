import Foundation

/// One factor of a unit: a base unit with a prefix, an optional molar mass and an integer power.
package struct UnitFactor: Sendable {
    package let base: BaseUnit
    package let prefix: HKMetricPrefix
    /// Grams per mole, for `mol<…>` only.
    package let molarMass: Double?
    package let power: Int
    /// The factor's spelling without its power, e.g. `"mmol<180.15588000005408>"`. Canonical identity.
    package let key: String
    /// Where the factor was written in a parsed string, for error messages.
    package let offset: Int?

    package init(base: BaseUnit, prefix: HKMetricPrefix, molarMass: Double?, power: Int, offset: Int? = nil) {
        self.base = base
        self.prefix = prefix
        self.molarMass = molarMass
        self.power = power
        self.offset = offset
        var key = prefix.symbol + base.symbol
        if let molarMass { key += "<\(formatUnitNumber(molarMass))>" }
        self.key = key
    }

    package func withPower(_ power: Int) -> UnitFactor {
        UnitFactor(base: base, prefix: prefix, molarMass: molarMass, power: power, offset: offset)
    }

    /// Dimension of the factor at power 1. A mole with a molar mass is a mass.
    package var dimension: UnitDimension { molarMass == nil ? base.dimension : UnitCatalog.mass }

    /// Scale at power 1 as mantissa × 10^exponent.
    package var mantissa: Double { base.mantissa * (molarMass ?? 1) }
    package var exponent: Int { base.exponent + prefix.decimalExponent }
}

/// The numbers `HKUnit` needs to convert values, kept apart from the unit's strings and arrays so
/// conversion reads only plain values and never retains or allocates.
package struct UnitScale: Sendable {
    package let dimension: UnitDimension
    package let mantissa: Double
    package let exponent: Int
    package let kind: UnitConversionKind
}

/// Why a combination of factors is not a unit.
package struct UnitBuildError: Error {
    package let reason: String
    package let offset: Int?
}

/// A unit in canonical form: merged, sorted factors, their spelling and their scale.
package struct UnitRepresentation: Sendable {
    package let factors: [UnitFactor]
    package let unitString: String
    package let scale: UnitScale
    package let stringHash: Int

    package static let null = try! UnitRepresentation.make([])

    /// The largest power any factor may have after merging (`m^1000`).
    package static let maximumPower = 1000

    /// Builds the canonical form of the product of `factors` (duplicates allowed, powers added).
    ///
    /// Offset and logarithmic units (`degC`, `degF`, `dBASPL`, `dBHL`) are accepted only as the
    /// sole factor at power 1; anything else throws, even when the factors would cancel (`degC/degC`).
    package static func make(_ rawFactors: [UnitFactor]) throws(UnitBuildError) -> UnitRepresentation {
        if let special = rawFactors.first(where: { $0.base.standaloneOnly }),
            rawFactors.count != 1 || special.power != 1
        {
            throw UnitBuildError(
                reason: "\"\(special.key)\" has an offset or logarithmic scale, so it cannot be combined "
                    + "with other units or raised to a power",
                offset: special.offset)
        }

        // Merge equal factors, keeping first-seen order, then drop cancelled ones and sort.
        var merged: [UnitFactor] = []
        var indexByKey: [String: Int] = [:]
        for factor in rawFactors {
            if let i = indexByKey[factor.key] {
                merged[i] = merged[i].withPower(merged[i].power + factor.power)
            } else {
                indexByKey[factor.key] = merged.count
                merged.append(factor)
            }
        }
        let factors = merged.filter { $0.power != 0 }.sorted { $0.key < $1.key }

        if let huge = factors.first(where: { $0.power.magnitude > maximumPower }) {
            throw UnitBuildError(
                reason: "the power of \"\(huge.key)\" is out of range -\(maximumPower)…\(maximumPower)",
                offset: huge.offset)
        }
        var dimension = UnitDimension.dimensionless
        var mantissa = 1.0
        var exponent = 0
        for factor in factors {
            guard let next = dimension.adding(factor.dimension, times: factor.power) else {
                throw UnitBuildError(reason: "the power of \"\(factor.key)\" is too large", offset: factor.offset)
            }
            dimension = next
            mantissa *= integerPower(factor.mantissa, factor.power)
            exponent += factor.exponent * factor.power
        }
        let kind = factors.count == 1 ? factors[0].base.kind : .linear
        let string = render(factors)
        return UnitRepresentation(
            factors: factors, unitString: string,
            scale: UnitScale(dimension: dimension, mantissa: mantissa, exponent: exponent, kind: kind),
            stringHash: string.hashValue)
    }

    /// HealthKit's spelling: numerator factors, then `/` and the denominator, joined by `·`
    /// (`"kcal/hr·kg"`, `"m/s^2"`, `"count/min"`). With no numerator, negative powers (`"s^-1"`).
    /// The null unit is `"()"`.
    package static func render(_ factors: [UnitFactor]) -> String {
        if factors.isEmpty { return "()" }
        func term(_ factor: UnitFactor, _ power: Int) -> String {
            power == 1 ? factor.key : "\(factor.key)^\(power)"
        }
        let numerator = factors.filter { $0.power > 0 }
        let denominator = factors.filter { $0.power < 0 }
        if numerator.isEmpty {
            return denominator.map { term($0, $0.power) }.joined(separator: "·")
        }
        var text = numerator.map { term($0, $0.power) }.joined(separator: "·")
        if !denominator.isEmpty {
            text += "/" + denominator.map { term($0, -$0.power) }.joined(separator: "·")
        }
        return text
    }
}

/// `x^n` by repeated multiplication, so integer mantissas stay exact.
package func integerPower(_ x: Double, _ n: Int) -> Double {
    if n == 0 { return 1 }
    var result = 1.0
    for _ in 0 ..< abs(n) { result *= x }
    return n > 0 ? result : 1 / result
}

/// Formats a molar mass: integers without a fraction (`180`), others with Swift's shortest
/// round-tripping digits (`180.15588000005408`).
package func formatUnitNumber(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return "\(value)"
}

// MARK: - Conversion

extension UnitScale {
    /// Converts `value` from this unit to `target`. Both must have the same dimension.
    /// Pure arithmetic: no allocation, no locks.
    @inline(__always)
    package func convert(_ value: Double, to target: UnitScale) -> Double {
        if kind == .linear && target.kind == .linear {
            // The ratio first: equal mantissas (count/min in another spelling) convert exactly.
            return scaleByPowerOfTen(value * (mantissa / target.mantissa), exponent - target.exponent)
        }
        return convertSpecial(value, to: target)
    }

    /// Offset (temperature) and logarithmic (sound pressure) conversions.
    package func convertSpecial(_ value: Double, to target: UnitScale) -> Double {
        if dimension == .temperature {
            return target.fromCelsius(toCelsius(value))
        }
        return target.fromPascals(toPascals(value))
    }

    private func toCelsius(_ value: Double) -> Double {
        switch kind {
        case .celsius: value
        case .fahrenheit: (value - 32) * 5 / 9
        case .linear, .soundPressureLevel: scaleByPowerOfTen(value * mantissa, exponent) - 273.15
        }
    }

    private func fromCelsius(_ celsius: Double) -> Double {
        switch kind {
        case .celsius: celsius
        case .fahrenheit: celsius * 9 / 5 + 32
        case .linear, .soundPressureLevel: scaleByPowerOfTen((celsius + 273.15) / mantissa, -exponent)
        }
    }

    /// Reference pressure of sound pressure level: 20 µPa.
    private static let referencePressure = 20e-6

    private func toPascals(_ value: Double) -> Double {
        switch kind {
        case .soundPressureLevel: Self.referencePressure * pow(10, value / 20)
        default: scaleByPowerOfTen(value * mantissa, exponent - 3)
        }
    }

    private func fromPascals(_ pascals: Double) -> Double {
        switch kind {
        case .soundPressureLevel: 20 * log10(pascals / Self.referencePressure)
        default: scaleByPowerOfTen(pascals / mantissa, 3 - exponent)
        }
    }
}
