import Foundation

/// The dimension of a unit: one small integer exponent per axis, packed so that comparing two
/// dimensions is a single vector compare.
///
/// Axes 0–6 are physical (mass, length, time, temperature, current, amount of substance, luminous
/// intensity). The rest are HealthKit's "kinds" that have no physical conversion (angle,
/// international unit, hearing level, effort score, prismatic deviation). Dimensionless units
/// (`count`, `%`, the null unit, `km/m`) have all exponents zero and are mutually compatible.
package struct UnitDimension: Hashable, Sendable {
    package enum Axis: Int, CaseIterable, Sendable {
        case mass, length, time, temperature, current, amount, luminousIntensity
        case angle, internationalUnit, hearingLevel, effortScore, prismaticDeviation
    }

    package var exponents: SIMD16<Int8>

    package static let dimensionless = UnitDimension(exponents: .zero)

    package init(_ pairs: KeyValuePairs<Axis, Int8>) {
        var e = SIMD16<Int8>.zero
        for (axis, value) in pairs { e[axis.rawValue] = value }
        exponents = e
    }

    package init(exponents: SIMD16<Int8>) { self.exponents = exponents }

    package subscript(axis: Axis) -> Int { Int(exponents[axis.rawValue]) }

    /// `self + other × power`, or `nil` if an exponent leaves `Int8` range.
    package func adding(_ other: UnitDimension, times power: Int) -> UnitDimension? {
        var result = exponents
        for axis in Axis.allCases {
            let sum = Int(exponents[axis.rawValue]) + Int(other.exponents[axis.rawValue]) * power
            guard let narrow = Int8(exactly: sum) else { return nil }
            result[axis.rawValue] = narrow
        }
        return UnitDimension(exponents: result)
    }

    package static let temperature = UnitDimension([.temperature: 1])
    package static let pressure = UnitDimension([.mass: 1, .length: -1, .time: -2])
}

/// How values of a standalone unit convert, beyond multiplying by a scale.
package enum UnitConversionKind: UInt8, Sendable {
    /// `value × mantissa × 10^exponent` in coherent base units (g, m, s, K, A, mol, cd, rad…).
    case linear
    /// Degrees Celsius: offset from kelvin.
    case celsius
    /// Degrees Fahrenheit: offset and scale from Celsius.
    case fahrenheit
    /// A-weighted sound pressure level: `Pa = 20 µPa × 10^(dB/20)`.
    case soundPressureLevel
}

/// One named unit of HealthKit's unit-string grammar, before any prefix or power.
///
/// The scale is kept as `mantissa × 10^exponent`, with integer mantissas where the definition is
/// exact (a mile is 1609344 × 10⁻³ m), so prefixes and imperial/metric conversions stay exact.
/// Mass is measured in grams, so `J` is 1 × 10³ g·m²·s⁻².
package struct BaseUnit: Sendable {
    package let symbol: String
    package let prefixable: Bool
    package let dimension: UnitDimension
    package let mantissa: Double
    package let exponent: Int
    package let kind: UnitConversionKind
    /// Offset and logarithmic units (and `dBHL`) are only meaningful alone, at power 1.
    package let standaloneOnly: Bool

    package init(
        _ symbol: String, prefixable: Bool, _ dimension: UnitDimension, _ mantissa: Double = 1,
        e exponent: Int = 0, kind: UnitConversionKind = .linear, standaloneOnly: Bool = false
    ) {
        self.symbol = symbol
        self.prefixable = prefixable
        self.dimension = dimension
        self.mantissa = mantissa
        self.exponent = exponent
        self.kind = kind
        self.standaloneOnly = standaloneOnly
    }

    package var isMole: Bool { symbol == "mol" }
}

/// The table of every unit name HealthKit's grammar knows.
package enum UnitCatalog {
    package static let mass = UnitDimension([.mass: 1])
    package static let length = UnitDimension([.length: 1])
    package static let volume = UnitDimension([.length: 3])
    package static let time = UnitDimension([.time: 1])
    package static let energy = UnitDimension([.mass: 1, .length: 2, .time: -2])
    package static let power = UnitDimension([.mass: 1, .length: 2, .time: -3])

    package static let units: [BaseUnit] = [
        // Prefixable SI units.
        BaseUnit("g", prefixable: true, mass),
        BaseUnit("m", prefixable: true, length),
        BaseUnit("L", prefixable: true, volume, e: -3),
        BaseUnit("Pa", prefixable: true, UnitDimension.pressure, e: 3),
        BaseUnit("s", prefixable: true, time),
        BaseUnit("J", prefixable: true, energy, e: 3),
        BaseUnit("K", prefixable: true, UnitDimension.temperature),
        BaseUnit("S", prefixable: true, UnitDimension([.mass: -1, .length: -2, .time: 3, .current: 2]), e: -3),
        BaseUnit("Hz", prefixable: true, UnitDimension([.time: -1])),
        BaseUnit("V", prefixable: true, UnitDimension([.mass: 1, .length: 2, .time: -3, .current: -1]), e: 3),
        BaseUnit("W", prefixable: true, power, e: 3),
        BaseUnit("mol", prefixable: true, UnitDimension([.amount: 1])),
        BaseUnit("lx", prefixable: true, UnitDimension([.luminousIntensity: 1, .length: -2])),
        BaseUnit("rad", prefixable: true, UnitDimension([.angle: 1])),
        // Mass.
        BaseUnit("oz", prefixable: false, mass, 45_359_237.0 / 16, e: -5),
        BaseUnit("lb", prefixable: false, mass, 45_359_237, e: -5),
        BaseUnit("st", prefixable: false, mass, 45_359_237 * 14, e: -5),
        // Length.
        BaseUnit("in", prefixable: false, length, 254, e: -4),
        BaseUnit("ft", prefixable: false, length, 3048, e: -4),
        BaseUnit("yd", prefixable: false, length, 9144, e: -4),
        BaseUnit("mi", prefixable: false, length, 1_609_344, e: -3),
        // Pressure (Pa is 10³ g·m⁻¹·s⁻²).
        BaseUnit("mmHg", prefixable: false, UnitDimension.pressure, 133_322_387_415, e: -9 + 3),
        BaseUnit("cmAq", prefixable: false, UnitDimension.pressure, 980_665, e: -4 + 3),
        BaseUnit("atm", prefixable: false, UnitDimension.pressure, 101_325, e: 3),
        BaseUnit("inHg", prefixable: false, UnitDimension.pressure, 3_386_389, e: -3 + 3),
        BaseUnit(
            "dBASPL", prefixable: false, UnitDimension.pressure, 1, e: 3,
            kind: .soundPressureLevel, standaloneOnly: true),
        // Volume (m³). 1 US fl oz = 29.5735295625 mL; 1 imperial fl oz = 28.4130625 mL.
        BaseUnit("fl_oz_us", prefixable: false, volume, 295_735_295_625, e: -10 - 6),
        BaseUnit("fl_oz_imp", prefixable: false, volume, 284_130_625, e: -7 - 6),
        BaseUnit("pt_us", prefixable: false, volume, 473_176_473, e: -6 - 6),  // 16 US fl oz
        BaseUnit("pt_imp", prefixable: false, volume, 56_826_125, e: -5 - 6),  // 20 imp fl oz
        BaseUnit("cup_us", prefixable: false, volume, 2_365_882_365, e: -7 - 6),  // 8 US fl oz
        BaseUnit("cup_imp", prefixable: false, volume, 284_130_625, e: -6 - 6),  // 10 imp fl oz
        // Time.
        BaseUnit("min", prefixable: false, time, 60),
        BaseUnit("hr", prefixable: false, time, 3600),
        BaseUnit("d", prefixable: false, time, 86400),
        // Energy (J is 10³ g·m²·s⁻²): cal = 4.184 J, kcal = Cal = 4184 J.
        BaseUnit("cal", prefixable: false, energy, 4184, e: 0),
        BaseUnit("kcal", prefixable: false, energy, 4184, e: 3),
        BaseUnit("Cal", prefixable: false, energy, 4184, e: 3),
        // Temperature with offsets: standalone only.
        BaseUnit("degC", prefixable: false, UnitDimension.temperature, kind: .celsius, standaloneOnly: true),
        BaseUnit(
            "degF", prefixable: false, UnitDimension.temperature, 5.0 / 9.0, kind: .fahrenheit,
            standaloneOnly: true),
        // Scalars and kinds.
        BaseUnit("IU", prefixable: false, UnitDimension([.internationalUnit: 1])),
        BaseUnit("count", prefixable: false, .dimensionless),
        BaseUnit("%", prefixable: false, .dimensionless),
        BaseUnit("dBHL", prefixable: false, UnitDimension([.hearingLevel: 1]), standaloneOnly: true),
        BaseUnit("appleEffortScore", prefixable: false, UnitDimension([.effortScore: 1])),
        BaseUnit("deg", prefixable: false, UnitDimension([.angle: 1]), Double.pi / 180),
        BaseUnit("D", prefixable: false, UnitDimension([.length: -1])),
        BaseUnit("pD", prefixable: false, UnitDimension([.prismaticDeviation: 1])),
    ]

    /// Every unit by symbol, plus the lowercase liter alias `l`.
    package static let bySymbol: [String: BaseUnit] = {
        var table: [String: BaseUnit] = [:]
        for unit in units { table[unit.symbol] = unit }
        table["l"] = table["L"]
        return table
    }()

    /// Resolves one unit name (`"kg"`, `"min"`, `"mcL"`), preferring an exact name over prefix + name.
    package static func resolve(_ name: String) -> Result<(BaseUnit, HKMetricPrefix), ResolveFailure> {
        if let exact = bySymbol[name] { return .success((exact, .none)) }
        var unprefixable: String?
        for (symbol, prefix) in HKMetricPrefix.parseOrder where name.hasPrefix(symbol) {
            let rest = String(name.dropFirst(symbol.count))
            guard let base = bySymbol[rest] else { continue }
            if base.prefixable { return .success((base, prefix)) }
            unprefixable = rest
        }
        if let unprefixable { return .failure(.notPrefixable(unprefixable)) }
        return .failure(.unknown)
    }

    package enum ResolveFailure: Error {
        case unknown
        case notPrefixable(String)
    }
}

/// `10^e`, exact for |e| ≤ 22 (every power of ten up to 1e22 is a Double).
@inline(__always)
package func scaleByPowerOfTen(_ x: Double, _ e: Int) -> Double {
    switch e {
    case 0: return x
    case 1 ... 22: return x * exactPowersOfTen[e]
    case -22 ... -1: return x / exactPowersOfTen[-e]
    default: return x * pow(10, Double(e))
    }
}

private let exactPowersOfTen: [Double] = (0 ... 22).map { e in
    var p = 1.0
    for _ in 0 ..< e { p *= 10 }
    return p
}
