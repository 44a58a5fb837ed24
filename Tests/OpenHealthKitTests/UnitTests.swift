import Foundation
import Testing

@testable import OpenHealthKit

@Suite("HKUnit", .timeLimit(.minutes(1)))
struct UnitTests {
    /// Every named constructor with the unit string it must produce.
    static let namedUnits: [(HKUnit, String)] = [
        (.gramUnit(with: .kilo), "kg"), (.gramUnit(with: .micro), "mcg"), (.gram(), "g"),
        (.ounce(), "oz"), (.pound(), "lb"), (.stone(), "st"),
        (.moleUnit(with: .milli, molarMass: HKUnitMolarMassBloodGlucose), "mmol<180.15588000005408>"),
        (.moleUnit(withMolarMass: 18), "mol<18>"),
        (.meterUnit(with: .centi), "cm"), (.meter(), "m"), (.inch(), "in"), (.foot(), "ft"),
        (.yard(), "yd"), (.mile(), "mi"),
        (.literUnit(with: .milli), "mL"), (.liter(), "L"), (.fluidOunceUS(), "fl_oz_us"),
        (.fluidOunceImperial(), "fl_oz_imp"), (.pintUS(), "pt_us"), (.pintImperial(), "pt_imp"),
        (.cupUS(), "cup_us"), (.cupImperial(), "cup_imp"),
        (.pascalUnit(with: .kilo), "kPa"), (.pascal(), "Pa"), (.millimeterOfMercury(), "mmHg"),
        (.centimeterOfWater(), "cmAq"), (.atmosphere(), "atm"), (.inchesOfMercury(), "inHg"),
        (.decibelAWeightedSoundPressureLevel(), "dBASPL"),
        (.secondUnit(with: .milli), "ms"), (.second(), "s"), (.minute(), "min"), (.hour(), "hr"),
        (.day(), "d"),
        (.jouleUnit(with: .kilo), "kJ"), (.joule(), "J"), (.kilocalorie(), "kcal"),
        (.smallCalorie(), "cal"), (.largeCalorie(), "Cal"),
        (.degreeCelsius(), "degC"), (.degreeFahrenheit(), "degF"), (.kelvin(), "K"),
        (.siemenUnit(with: .milli), "mS"), (.siemen(), "S"), (.internationalUnit(), "IU"),
        (.count(), "count"), (.percent(), "%"), (.decibelHearingLevel(), "dBHL"),
        (.hertzUnit(with: .kilo), "kHz"), (.hertz(), "Hz"), (.voltUnit(with: .milli), "mV"),
        (.volt(), "V"), (.wattUnit(with: .kilo), "kW"), (.watt(), "W"),
        (.diopter(), "D"), (.prismDiopter(), "pD"),
        (.radianAngleUnit(with: .milli), "mrad"), (.radianAngle(), "rad"), (.degreeAngle(), "deg"),
        (.luxUnit(with: .kilo), "klx"), (.lux(), "lx"), (.appleEffortScore(), "appleEffortScore"),
        (.gramUnit(with: .femto), "fg"), (.gramUnit(with: .pico), "pg"), (.gramUnit(with: .nano), "ng"),
        (.meterUnit(with: .deci), "dm"), (.meterUnit(with: .deca), "dam"), (.pascalUnit(with: .hecto), "hPa"),
        (.jouleUnit(with: .mega), "MJ"), (.wattUnit(with: .giga), "GW"), (.hertzUnit(with: .tera), "THz"),
    ]

    @Test func namedUnitsHaveHealthKitStringsAndRoundTrip() {
        for (unit, expected) in Self.namedUnits {
            #expect(unit.unitString == expected)
            #expect(unit.description == expected)
            #expect(HKUnit(from: unit.unitString) == unit, "\(expected) does not round-trip")
            #expect(!unit.isNull())
        }
    }

    @Test(
        arguments: [
            ("count/min", "count/min"), ("m/s^2", "m/s^2"), ("kcal/(kg*hr)", "kcal/hr·kg"),
            ("kcal/hr·kg", "kcal/hr·kg"), ("kg/m.s^2", "kg/m·s^2"), ("kg.m^-1.s^-2", "kg/m·s^2"),
            ("mg/dL", "mg/dL"), ("mmol<180.15588000005408>/L", "mmol<180.15588000005408>/L"),
            ("ml", "mL"), ("\u{00B5}g", "mcg"), ("\u{03BC}L", "mcL"), ("mL/kg*min", "mL/kg·min"),
            ("s^-1", "s^-1"), ("m.m", "m^2"), ("m/m", "()"), ("()", "()"),
            ("((m))^2/((s))", "m^2/s"), ("(m/s)^-2", "s^2/m^2"), ("m^+2", "m^2"), ("m^0", "()"),
            ("count/s", "count/s"), ("mol<180>", "mol<180>"), ("mol<1.8e2>", "mol<180>"),
            ("degC^1", "degC"), ("J/K", "J/K"), ("km.m", "km·m"), ("m*m^-1*s", "s"),
        ] as [(String, String)])
    func parsedStringsHaveCanonicalSpelling(input: String, canonical: String) throws {
        let unit = try HKUnit.parse(input)
        #expect(unit.unitString == canonical)
        #expect(try HKUnit.parse(unit.unitString) == unit)
        #expect(HKUnit(from: input) == unit)
    }

    @Test func grammarEquivalences() throws {
        let a = HKUnit(from: "kg/m.s^2")
        #expect(a == HKUnit(from: "kg/(m.s^2)"))
        #expect(a == HKUnit(from: "kg.m^-1.s^-2"))
        #expect(a == HKUnit(from: "kg*m^-1*s^-2"))
        #expect(a == HKUnit(from: "kg/(m·s·s)"))
        #expect(
            a
                == HKUnit.gramUnit(with: .kilo).unitDivided(by: .meter())
                .unitDivided(by: .second().unitRaised(toPower: 2)))
        #expect(a.hash == HKUnit(from: "kg.m^-1.s^-2").hash)
        #expect(HKUnit(from: "kcal/(kg*hr)") == HKUnit(from: "kcal/(hr.kg)"))
        #expect(HKUnit(from: "kcal/((kg)*(hr^1))") == HKUnit(from: "kcal.kg^-1.hr^-1"))
        #expect(HKUnit(from: "(kcal/kg)/hr") == HKUnit(from: "kcal/hr·kg"))
        #expect(HKUnit(from: "m/(s/(kg))") == HKUnit(from: "m.kg/s"))
        #expect(Set([HKUnit(from: "mL"), HKUnit(from: "ml"), HKUnit.literUnit(with: .milli)]).count == 1)
    }

    @Test func compatibleButDistinctUnitsAreNotEqual() {
        #expect(HKUnit.kilocalorie() != HKUnit.largeCalorie())
        #expect(HKUnit(from: "J") != HKUnit(from: "kg.m^2/s^2"))
        #expect(HKUnit.meter() != HKUnit.foot())
        #expect(!HKUnit.meter().isEqual("m"))
    }

    @Test func exactNamesWinOverPrefixes() throws {
        #expect(HKUnit(from: "min") == .minute())  // not milli-inch
        #expect(HKUnit(from: "mi") == .mile())
        #expect(HKUnit(from: "mmHg") == .millimeterOfMercury())
        #expect(HKUnit(from: "pD") == .prismDiopter())  // not pico-diopter
        #expect(HKUnit(from: "d") == .day())  // not a bare deci prefix
        #expect(HKUnit(from: "dL") == .literUnit(with: .deci))
        #expect(HKUnit(from: "dam") == .meterUnit(with: .deca))
        #expect(HKUnit(from: "mcg") == .gramUnit(with: .micro))
        #expect(HKUnit(from: "mmol<5>") == .moleUnit(with: .milli, molarMass: 5))
        #expect(HKUnit(from: "kcal") == .kilocalorie())
        #expect(HKUnit(from: "Cal") == .largeCalorie())
        #expect(HKUnit(from: "cal") == .smallCalorie())
    }

    @Test func unitMath() {
        let perMinute = HKUnit.count().unitDivided(by: .minute())
        #expect(perMinute.unitString == "count/min")
        #expect(HKUnit.second().reciprocal().unitString == "s^-1")
        #expect(HKUnit.second().reciprocal().reciprocal() == .second())
        #expect(HKUnit.meter().unitMultiplied(by: .meter()) == HKUnit(from: "m^2"))
        #expect(HKUnit.meter().unitDivided(by: .meter()).isNull())
        #expect(HKUnit.meter().unitRaised(toPower: 0).isNull())
        #expect(HKUnit.meter().unitRaised(toPower: 3).unitString == "m^3")
        #expect(HKUnit(from: "()").isNull())
        #expect(!HKUnit.count().isNull())
        #expect(HKUnit.degreeCelsius().unitMultiplied(by: HKUnit(from: "()")) == .degreeCelsius())
        #expect(HKUnit.degreeCelsius().unitRaised(toPower: 1) == .degreeCelsius())
        let effort = HKUnit.kilocalorie().unitDivided(by: HKUnit.hour().unitMultiplied(by: .gramUnit(with: .kilo)))
        #expect(effort.unitString == "kcal/hr·kg")
    }

    @Test func unitFromStringClassMethodAndCopying() {
        let unit = HKUnit.unit(from: "count/min")
        #expect(unit == HKUnit.count().unitDivided(by: .minute()))
        #expect((unit.copy() as? HKUnit) == unit)
    }

    @Test func metricPrefixRawValuesMatchHealthKit() {
        let expected: [(HKMetricPrefix, Int)] = [
            (.none, 0), (.pico, 1), (.nano, 2), (.micro, 3), (.milli, 4), (.centi, 5), (.deci, 6),
            (.deca, 7), (.hecto, 8), (.kilo, 9), (.mega, 10), (.giga, 11), (.tera, 12), (.femto, 13),
        ]
        for (prefix, raw) in expected {
            #expect(prefix.rawValue == raw)
            #expect(HKMetricPrefix(rawValue: raw) == prefix)
        }
        #expect(HKMetricPrefix(rawValue: 14) == nil)
    }

    @Test func dimensionKeysDecideCompatibility() {
        #expect(HKUnit(from: "count/s").dimensionKey == HKUnit.hertz().dimensionKey)
        #expect(HKUnit(from: "J/s").dimensionKey == HKUnit.watt().dimensionKey)
        #expect(HKUnit(from: "kg.m^2/s^2").dimensionKey == HKUnit.kilocalorie().dimensionKey)
        #expect(HKUnit.count().dimensionKey == HKUnit.percent().dimensionKey)
        #expect(HKUnit.count().dimensionKey == UnitDimension.dimensionless)
        #expect(HKUnit.count().dimensionKey != HKUnit.internationalUnit().dimensionKey)
        #expect(HKUnit.radianAngle().dimensionKey != HKUnit.count().dimensionKey)
        #expect(HKUnit.diopter().dimensionKey == HKUnit(from: "m^-1").dimensionKey)
        #expect(HKUnit.moleUnit(withMolarMass: 2).dimensionKey == HKUnit.gram().dimensionKey)
        #expect(HKUnit(from: "mol").dimensionKey != HKUnit.gram().dimensionKey)
        #expect(HKUnit.degreeFahrenheit().isCompatible(withUnit: .kelvin()))
        #expect(!HKUnit.meter().isCompatible(withUnit: .second()))
    }

    @Test func cachedParsingIsSharedAcrossTasks() async throws {
        let strings = ["count/min", "kcal/hr·kg", "m/s", "mmol<180.15588000005408>/L", "mg/dL"]
        let results = await withTaskGroup(of: [String].self) { group in
            for _ in 0 ..< 16 {
                group.addTask { (0 ..< 200).flatMap { _ in strings.map { HKUnit(from: $0).unitString } } }
            }
            return await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        #expect(results.count == 16)
        for result in results {
            #expect(Set(result) == ["count/min", "kcal/hr·kg", "m/s", "mmol<180.15588000005408>/L", "mg/dL"])
        }
    }

    /// Each bad string, the offset the message must name, and a phrase it must contain.
    @Test(
        arguments: [
            ("", nil, "the string is empty"),
            ("/", 0, "expected a unit name"),
            ("m//s", 2, "expected a unit name or '(' after '/', found '/'"),
            ("kg^", 3, "expected an integer power after '^', found the end of the string"),
            ("m^-", 3, "expected an integer power"),
            ("(m", 2, "expected ')' to close the '(' at offset 0"),
            ("((m)", 4, "expected ')' to close the '(' at offset 0"),
            ("m)", 1, "found ')' with no matching '('"),
            ("xyz", 0, "unknown unit \"xyz\""),
            ("m^1.5", 2, "powers must be integers, found \"1.5\""),
            ("kcal/hr/s", 7, "only one '/'"),
            ("degC.m", 0, "\"degC\" has an offset or logarithmic scale"),
            ("m.degF", 2, "\"degF\" has an offset or logarithmic scale"),
            ("degC^2", 0, "cannot be combined with other units or raised to a power"),
            ("degC/degC", 0, "cannot be combined"),
            ("dBASPL/s", 0, "cannot be combined"),
            ("dBHL^-1", 0, "cannot be combined"),
            (" kg", 0, "whitespace is not allowed"),
            ("kg ", 2, "whitespace is not allowed"),
            ("kcal / hr", 4, "whitespace is not allowed"),
            ("cd", 0, "\"d\" does not take a metric prefix"),
            ("kcount", 0, "\"count\" does not take a metric prefix"),
            ("mcal", 0, "\"cal\" does not take a metric prefix"),
            ("1", 0, "expected a unit name or '(', found '1'"),
            ("m.", 2, "after '.', found the end of the string"),
            ("kg<5>", 0, "may only follow \"mol\""),
            ("mol<abc>", 4, "is not a positive number"),
            ("mol<-5>", 4, "is not a positive number"),
            ("mol<5", 5, "expected '>'"),
            ("m^200", 2, "out of range"),
            ("m^100.m^100", 0, "too large"),
            ("(m^127)^127", 8, "the power of \"m\" is out of range"),
            ("((count^127)^127)^127", 13, "out of range"),
            ("count^127.count^127.count^127.count^127.count^127.count^127.count^127.count^127", 0, "out of range"),
            ("m s", 1, "whitespace"),
            ("m,s", 1, "expected '.', '*', '/' or the end of the string, found ','"),
            ("MMHG", 0, "unknown unit"),
        ] as [(String, Int?, String)])
    func invalidStringsThrowInvalidArgument(input: String, offset: Int?, phrase: String) {
        do {
            let unit = try HKUnit.parse(input)
            Issue.record("\"\(input)\" parsed as \(unit)")
        } catch {
            #expect(error.code == .errorInvalidArgument)
            #expect(error.message.hasPrefix("Invalid unit string \"\(input)\""), "\(error.message)")
            #expect(error.message.contains(phrase), "\(error.message)")
            if let offset {
                #expect(error.message.contains("at offset \(offset):"), "\(error.message)")
            }
            #expect(error.message.hasSuffix("."))
        }
    }

    @Test func deeplyNestedParenthesesAreRejectedNotOverflowed() {
        let deep = String(repeating: "(", count: 100) + "m" + String(repeating: ")", count: 100)
        #expect(throws: HKError.self) { try HKUnit.parse(deep) }
        let ok = String(repeating: "(", count: 10) + "m" + String(repeating: ")", count: 10)
        #expect(HKUnit(from: ok) == .meter())
    }
}
