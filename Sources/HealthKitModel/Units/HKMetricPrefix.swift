/// Prefixes that can be added to SI units to change the order of magnitude.
///
/// The raw values are HealthKit's (`femto` was added last, so it is 13).
///
/// HealthKit: HKMetricPrefix.
public enum HKMetricPrefix: Int, Sendable {
    /// A prefix that does not modify the base unit.
    case none = 0
    /// A prefix that multiplies the base unit by 1e-12.
    case pico = 1
    /// A prefix that multiplies the base unit by 1e-9.
    case nano = 2
    /// A prefix that multiplies the base unit by 1e-6. Its unit-string symbol is `mc`.
    case micro = 3
    /// A prefix that multiplies the base unit by 0.001.
    case milli = 4
    /// A prefix that multiplies the base unit by 0.01.
    case centi = 5
    /// A prefix that multiplies the base unit by 0.1.
    case deci = 6
    /// A prefix that multiplies the base unit by 10.
    case deca = 7
    /// A prefix that multiplies the base unit by 100.
    case hecto = 8
    /// A prefix that multiplies the base unit by 1000.
    case kilo = 9
    /// A prefix that multiplies the base unit by 1e6.
    case mega = 10
    /// A prefix that multiplies the base unit by 1e9.
    case giga = 11
    /// A prefix that multiplies the base unit by 1e12.
    case tera = 12
    /// A prefix that multiplies the base unit by 1e-15.
    case femto = 13
}

extension HKMetricPrefix {
    /// The symbol used in unit strings (`"k"` in `"kg"`, `"mc"` in `"mcg"`); empty for `.none`.
    package var symbol: String {
        switch self {
        case .none: ""
        case .femto: "f"
        case .pico: "p"
        case .nano: "n"
        case .micro: "mc"
        case .milli: "m"
        case .centi: "c"
        case .deci: "d"
        case .deca: "da"
        case .hecto: "h"
        case .kilo: "k"
        case .mega: "M"
        case .giga: "G"
        case .tera: "T"
        }
    }

    /// The power of ten the prefix multiplies by (`kilo` → 3).
    package var decimalExponent: Int {
        switch self {
        case .none: 0
        case .femto: -15
        case .pico: -12
        case .nano: -9
        case .micro: -6
        case .milli: -3
        case .centi: -2
        case .deci: -1
        case .deca: 1
        case .hecto: 2
        case .kilo: 3
        case .mega: 6
        case .giga: 9
        case .tera: 12
        }
    }

    /// Prefix spellings accepted by the parser, longest first so `da` wins over `d` and `mc` over `m`.
    /// `µ` (U+00B5) and `μ` (U+03BC) are accepted as input aliases of `mc`; output always uses `mc`.
    package static let parseOrder: [(symbol: String, prefix: HKMetricPrefix)] = [
        ("da", .deca), ("mc", .micro), ("\u{00B5}", .micro), ("\u{03BC}", .micro),
        ("f", .femto), ("p", .pico), ("n", .nano), ("m", .milli), ("c", .centi), ("d", .deci),
        ("h", .hecto), ("k", .kilo), ("M", .mega), ("G", .giga), ("T", .tera),
    ]
}
