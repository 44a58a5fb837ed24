import Foundation

/// A recursive-descent parser for HealthKit's unit-string grammar:
///
/// ```
/// unit     = quotient
/// quotient = product [ "/" product ]          ; at most one "/" per level
/// product  = factor { ("." | "*" | "·") factor }
/// factor   = atom [ "^" ["-" | "+"] digits ]
/// atom     = name [ "<" number ">" ] | "(" quotient ")" | "(" ")"
/// ```
///
/// Multiplication binds tighter than division, so `kg/m.s^2` is `kg/(m.s^2)`. `()` is the null
/// unit. Whitespace anywhere is rejected, as HealthKit rejects it; trim user input first.
/// Offsets in error messages count Unicode scalars from 0.
package struct UnitParser {
    private let text: String
    private let scalars: [Unicode.Scalar]
    private var index = 0

    private static let maximumNesting = 32
    private static let maximumPower = 127

    package init(_ text: String) {
        self.text = text
        self.scalars = Array(text.unicodeScalars)
    }

    /// Parses the whole string into its canonical representation.
    package static func parse(_ text: String) throws(HKError) -> UnitRepresentation {
        var parser = UnitParser(text)
        let factors = try parser.parseAll()
        do {
            return try UnitRepresentation.make(factors)
        } catch {
            throw parser.failure(error.reason, at: error.offset ?? 0)
        }
    }

    private mutating func parseAll() throws(HKError) -> [UnitFactor] {
        if scalars.isEmpty {
            throw HKError(
                .errorInvalidArgument,
                "Invalid unit string \"\": the string is empty; expected a unit such as \"count/min\".")
        }
        if let blank = scalars.firstIndex(where: { $0.properties.isWhitespace }) {
            throw failure("whitespace is not allowed in a unit string", at: blank)
        }
        let factors = try parseQuotient(depth: 0)
        guard let next = peek else { return factors }
        switch next {
        case ")": throw failure("found ')' with no matching '('", at: index)
        case "/": throw failure(Self.secondSlash, at: index)
        default: throw failure("expected '.', '*', '/' or the end of the string, found \(describe(index))", at: index)
        }
    }

    private static let secondSlash =
        "a unit may contain only one '/'; put the whole denominator in parentheses, as in \"kcal/(hr.kg)\""

    private mutating func parseQuotient(depth: Int) throws(HKError) -> [UnitFactor] {
        var factors = try parseProduct(depth: depth)
        if peek == "/" {
            index += 1
            factors += try parseProduct(depth: depth).map { $0.withPower(-$0.power) }
            if peek == "/" { throw failure(Self.secondSlash, at: index) }
        }
        return factors
    }

    private mutating func parseProduct(depth: Int) throws(HKError) -> [UnitFactor] {
        var factors = try parseFactor(depth: depth)
        while let next = peek, next == "." || next == "*" || next == "·" {
            index += 1
            factors += try parseFactor(depth: depth)
        }
        return factors
    }

    private mutating func parseFactor(depth: Int) throws(HKError) -> [UnitFactor] {
        var factors: [UnitFactor]
        let start = index
        if peek == "(" {
            guard depth < Self.maximumNesting else {
                throw failure("parentheses are nested more than \(Self.maximumNesting) deep", at: start)
            }
            index += 1
            if peek == ")" {
                factors = []
            } else {
                factors = try parseQuotient(depth: depth + 1)
            }
            guard peek == ")" else {
                throw failure("expected ')' to close the '(' at offset \(start), found \(describe(index))", at: index)
            }
            index += 1
        } else if let next = peek, Self.isNameScalar(next) {
            factors = [try parseName()]
        } else {
            let what = start == 0 ? "a unit name or '('" : "a unit name or '(' after \(describe(start - 1))"
            throw failure("expected \(what), found \(describe(start))", at: start)
        }

        if peek == "^" {
            index += 1
            let powerStart = index
            let power = try parsePower()
            factors = try factors.map { (factor) throws(HKError) -> UnitFactor in
                let (product, overflow) = factor.power.multipliedReportingOverflow(by: power)
                guard !overflow, product.magnitude <= UnitRepresentation.maximumPower else {
                    throw failure(
                        "the power of \"\(factor.key)\" is out of range "
                            + "-\(UnitRepresentation.maximumPower)…\(UnitRepresentation.maximumPower)",
                        at: powerStart)
                }
                return factor.withPower(product)
            }
        }
        return factors
    }

    private mutating func parsePower() throws(HKError) -> Int {
        let start = index
        var negative = false
        if peek == "-" || peek == "+" {
            negative = peek == "-"
            index += 1
        }
        let digitsStart = index
        while let next = peek, ("0" ... "9").contains(next) { index += 1 }
        guard index > digitsStart else {
            throw failure("expected an integer power after '^', found \(describe(index))", at: index)
        }
        if peek == ".", index + 1 < scalars.count, ("0" ... "9").contains(scalars[index + 1]) {
            var end = index + 1
            while end < scalars.count, ("0" ... "9").contains(scalars[end]) { end += 1 }
            throw failure("powers must be integers, found \"\(slice(start, end))\"", at: start)
        }
        guard let magnitude = Int(slice(digitsStart, index)), magnitude <= Self.maximumPower else {
            throw failure(
                "the power \"\(slice(start, index))\" is out of range "
                    + "-\(Self.maximumPower)…\(Self.maximumPower)", at: start)
        }
        return negative ? -magnitude : magnitude
    }

    private mutating func parseName() throws(HKError) -> UnitFactor {
        let start = index
        while let next = peek, Self.isNameScalar(next) { index += 1 }
        let name = slice(start, index)

        var molarMass: Double?
        if peek == "<" {
            let open = index
            index += 1
            let numberStart = index
            while let next = peek, next != ">" { index += 1 }
            guard peek == ">" else {
                throw failure(
                    "expected '>' to close the molar mass opened at offset \(open), "
                        + "found the end of the string", at: index)
            }
            let number = slice(numberStart, index)
            index += 1
            guard let value = Double(number), value.isFinite, value > 0 else {
                throw failure(
                    "the molar mass \"\(number)\" is not a positive number of grams per mole",
                    at: numberStart)
            }
            molarMass = value
        }

        switch UnitCatalog.resolve(name) {
        case .success(let (base, prefix)):
            if molarMass != nil, !base.isMole {
                throw failure("a molar mass \"<…>\" may only follow \"mol\", not \"\(name)\"", at: start)
            }
            return UnitFactor(base: base, prefix: prefix, molarMass: molarMass, power: 1, offset: start)
        case .failure(.notPrefixable(let base)):
            throw failure("\"\(base)\" does not take a metric prefix, so \"\(name)\" is not a unit", at: start)
        case .failure(.unknown):
            throw failure(
                "unknown unit \"\(name)\"; expected a HealthKit unit such as \"g\", \"m\", \"s\", "
                    + "\"count\" or \"kcal\", optionally with a metric prefix", at: start)
        }
    }

    // MARK: Helpers

    private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private static func isNameScalar(_ s: Unicode.Scalar) -> Bool {
        ("a" ... "z").contains(s) || ("A" ... "Z").contains(s) || s == "_" || s == "%"
            || s == "\u{00B5}" || s == "\u{03BC}"
    }

    private func slice(_ from: Int, _ to: Int) -> String {
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[from ..< to])
        return String(result)
    }

    private func describe(_ position: Int) -> String {
        position < scalars.count ? "'\(scalars[position])'" : "the end of the string"
    }

    private func failure(_ reason: String, at offset: Int) -> HKError {
        HKError(.errorInvalidArgument, "Invalid unit string \"\(text)\" at offset \(offset): \(reason).")
    }
}
