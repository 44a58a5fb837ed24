import Foundation
import Testing

@testable import OpenHealthKit

@Suite("HKQuantity")
struct QuantityTests {
    private func value(_ amount: Double, _ from: String, in to: String) -> Double {
        HKQuantity(unit: HKUnit(from: from), doubleValue: amount).doubleValue(for: HKUnit(from: to))
    }

    @Test func exactLengthFactors() {
        #expect(value(1, "mi", in: "m") == 1609.344)
        #expect(value(1, "ft", in: "m") == 0.3048)
        #expect(value(1, "in", in: "m") == 0.0254)
        #expect(value(1, "yd", in: "m") == 0.9144)
        #expect(value(1, "mi", in: "ft") == 5280)
        #expect(value(5280, "ft", in: "mi") == 1)
        #expect(value(1, "yd", in: "in") == 36)
        #expect(value(1, "km", in: "m") == 1000)
        #expect(value(1, "m", in: "cm") == 100)
        #expect(value(1, "m", in: "mm") == 1000)
        #expect(abs(value(5, "km", in: "mi") - 3.10685596118667) < 1e-14)
    }

    @Test func exactMassEnergyTimeFactors() {
        #expect(value(1, "lb", in: "g") == 453.59237)
        #expect(value(1, "lb", in: "kg") == 0.45359237)
        #expect(value(16, "oz", in: "lb") == 1)
        #expect(value(1, "st", in: "lb") == 14)
        #expect(value(1, "kcal", in: "J") == 4184)
        #expect(value(1, "Cal", in: "kcal") == 1)
        #expect(value(1, "cal", in: "J") == 4.184)
        #expect(value(1000, "cal", in: "kcal") == 1)
        #expect(value(1, "kJ", in: "J") == 1000)
        #expect(value(1, "hr", in: "s") == 3600)
        #expect(value(1, "d", in: "min") == 1440)
        #expect(value(90, "s", in: "min") == 1.5)
        #expect(value(1, "ms", in: "s") == 0.001)
        #expect(value(1, "mg", in: "g") == 0.001)
        #expect(value(1, "mcg", in: "mg") == 0.001)
    }

    @Test func derivedUnits() {
        #expect(value(120, "count/min", in: "count/s") == 2)
        #expect(value(2, "Hz", in: "count/min") == 120)
        #expect(value(1, "W", in: "J/s") == 1)
        #expect(value(3600, "kJ/hr", in: "W") == 1000)
        #expect(value(1, "kcal/hr·kg", in: "kcal/(kg*hr)") == 1)
        #expect(value(1, "kcal/hr·kg", in: "W/kg") == 4184.0 / 3600)
        #expect(value(1, "J", in: "kg.m^2/s^2") == 1)
        #expect(value(36, "km/hr", in: "m/s") == 10)
        #expect(value(1, "km/m", in: "count") == 1000)
        #expect(value(1, "L", in: "m^3") == 0.001)
        #expect(value(1, "dL", in: "mL") == 100)
        #expect(abs(value(1, "D", in: "m^-1") - 1) < 1e-15)
        #expect(value(180, "deg", in: "rad") == Double.pi)
    }

    @Test func volumeAndPressureDefinitions() {
        #expect(value(1, "fl_oz_us", in: "mL") == 29.5735295625)
        #expect(value(1, "fl_oz_imp", in: "mL") == 28.4130625)
        #expect(value(1, "pt_us", in: "fl_oz_us") == 16)
        #expect(value(1, "pt_imp", in: "fl_oz_imp") == 20)
        #expect(value(1, "cup_us", in: "fl_oz_us") == 8)
        #expect(value(1, "cup_imp", in: "fl_oz_imp") == 10)
        #expect(value(1, "mmHg", in: "Pa") == 133.322387415)
        #expect(value(1, "atm", in: "Pa") == 101325)
        #expect(value(1, "atm", in: "kPa") == 101.325)
        #expect(value(1, "cmAq", in: "Pa") == 98.0665)
        #expect(value(1, "inHg", in: "Pa") == 3386.389)
        #expect(abs(value(120, "mmHg", in: "kPa") - 15.9986864898) < 1e-9)
    }

    @Test func temperaturesConvertWithOffsets() {
        #expect(value(100, "degC", in: "degF") == 212)
        #expect(value(212, "degF", in: "degC") == 100)
        #expect(value(0, "degC", in: "degF") == 32)
        #expect(value(-40, "degF", in: "degC") == -40)
        #expect(value(37, "degC", in: "K") == 310.15)
        #expect(value(310.15, "K", in: "degC") == 37)
        #expect(value(273.15, "K", in: "degF") == 32)
        #expect(abs(value(0, "K", in: "degF") - -459.67) < 1e-12)
        #expect(abs(value(37000, "mK", in: "degC") - -236.15) < 1e-12)
        #expect(value(98.6, "degF", in: "degF") == 98.6)
        #expect(abs(value(98.6, "degF", in: "degC") - 37) < 1e-12)
        // Kelvin in a compound is linear and never meets an offset unit.
        #expect(value(1, "J/K", in: "J/mK") == 0.001)
        #expect(!HKQuantity(unit: HKUnit(from: "J/K"), doubleValue: 1).is(compatibleWith: .degreeCelsius()))
    }

    @Test func bloodGlucoseMassAndMolarUnitsConvert() {
        let mmolPerLiter = HKUnit.moleUnit(with: .milli, molarMass: HKUnitMolarMassBloodGlucose)
            .unitDivided(by: .liter())
        #expect(mmolPerLiter.unitString == "mmol<180.15588000005408>/L")
        #expect(mmolPerLiter == HKUnit(from: "mmol<180.15588000005408>/L"))
        let glucose = HKQuantity(unit: HKUnit(from: "mg/dL"), doubleValue: 100)
        #expect(glucose.is(compatibleWith: mmolPerLiter))
        #expect(glucose.doubleValue(for: mmolPerLiter) == 1000 / HKUnitMolarMassBloodGlucose)
        #expect(abs(glucose.doubleValue(for: mmolPerLiter) - 5.5507) < 1e-4)
        let back = HKQuantity(unit: mmolPerLiter, doubleValue: 5.5).doubleValue(for: HKUnit(from: "mg/dL"))
        #expect(abs(back - 99.0857340) < 1e-6)
        #expect(value(1, "mol<18>", in: "g") == 18)
        #expect(!HKQuantity(unit: HKUnit(from: "mol"), doubleValue: 1).is(compatibleWith: .gram()))
    }

    @Test func soundPressureLevelIsLogarithmicPressure() {
        #expect(abs(value(94, "dBASPL", in: "Pa") - 1.0023744672545) < 1e-12)
        #expect(value(20, "mcPa", in: "dBASPL") == 0)
        #expect(abs(value(1, "Pa", in: "dBASPL") - 93.979400086720) < 1e-9)
        #expect(abs(value(20, "dBASPL", in: "mcPa") - 200) < 1e-9)
        #expect(value(85, "dBASPL", in: "dBASPL") == 85)
    }

    @Test func percentIsAFractionCompatibleWithCount() {
        let half = HKQuantity(unit: .percent(), doubleValue: 0.5)
        #expect(half.is(compatibleWith: .count()))
        #expect(half.doubleValue(for: .count()) == 0.5)
        #expect(half.description == "0.5 %")
        #expect(!half.is(compatibleWith: .internationalUnit()))
    }

    @Test func incompatibleUnits() throws {
        let heartRate = HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: 72)
        #expect(!heartRate.is(compatibleWith: .meter()))
        #expect(!heartRate.is(compatibleWith: .count()))
        #expect(heartRate.is(compatibleWith: .hertz()))
        #expect(!HKQuantity(unit: .kilocalorie(), doubleValue: 1).is(compatibleWith: .watt()))
        #expect(!HKQuantity(unit: .degreeCelsius(), doubleValue: 1).is(compatibleWith: .joule()))
        #expect(
            !HKQuantity(unit: .decibelHearingLevel(), doubleValue: 1)
                .is(compatibleWith: .decibelAWeightedSoundPressureLevel()))
        #expect(!HKQuantity(unit: .appleEffortScore(), doubleValue: 1).is(compatibleWith: .count()))
        #expect(!HKQuantity(unit: .radianAngle(), doubleValue: 1).is(compatibleWith: .count()))
        #expect(!HKQuantity(unit: .prismDiopter(), doubleValue: 1).is(compatibleWith: .diopter()))
        do {
            _ = try heartRate.convertedValue(to: .meter())
            Issue.record("converted count/min to m")
        } catch {
            #expect(error.code == .errorInvalidArgument)
            #expect(error.message == "Cannot express 72 count/min in m: the units are incompatible.")
        }
        #expect(try heartRate.convertedValue(to: HKUnit(from: "count/s")) == 1.2)
    }

    @Test func compareOrdersAcrossUnits() {
        let mile = HKQuantity(unit: .mile(), doubleValue: 1)
        let km = HKQuantity(unit: .meterUnit(with: .kilo), doubleValue: 1)
        #expect(mile.compare(km) == .orderedDescending)
        #expect(km.compare(mile) == .orderedAscending)
        #expect(mile.compare(HKQuantity(unit: .foot(), doubleValue: 5280)) == .orderedSame)
        #expect(
            HKQuantity(unit: .degreeCelsius(), doubleValue: 100)
                .compare(HKQuantity(unit: .degreeFahrenheit(), doubleValue: 211)) == .orderedDescending)
        let sorted = [mile, km, HKQuantity(unit: .meter(), doubleValue: 1500)]
            .sorted { $0.compare($1) == .orderedAscending }
        #expect(sorted.map(\.description) == ["1 km", "1500 m", "1 mi"])
    }

    @Test func equalityIsByAmount() {
        let a = HKQuantity(unit: .meterUnit(with: .kilo), doubleValue: 1)
        let b = HKQuantity(unit: .meter(), doubleValue: 1000)
        #expect(a == b)
        #expect(a.hash == b.hash)
        #expect(a != HKQuantity(unit: .meter(), doubleValue: 999))
        #expect(a != HKQuantity(unit: .second(), doubleValue: 1000))
        #expect(
            HKQuantity(unit: .degreeCelsius(), doubleValue: 100)
                == HKQuantity(unit: .degreeFahrenheit(), doubleValue: 212))
        #expect(Set([a, b, HKQuantity(unit: .mile(), doubleValue: 1)]).count == 2)
        #expect((a.copy() as? HKQuantity) == a)
        #expect(!a.isEqual(HKUnit.meter()))
    }

    @Test func descriptions() {
        #expect(HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: 72).description == "72 count/min")
        #expect(HKQuantity(unit: .kilocalorie(), doubleValue: 12.5).description == "12.5 kcal")
        #expect(HKQuantity(unit: .degreeCelsius(), doubleValue: -3).description == "-3 degC")
    }

    @Test func conversionMatchesPackageHelper() {
        let perMinute = HKUnit(from: "count/min")
        let perSecond = HKUnit(from: "count/s")
        let quantity = HKQuantity(unit: perSecond, doubleValue: 2)
        #expect(quantity.doubleValue(for: perMinute) == perSecond.convert(2, to: perMinute))
        #expect(quantity.unit == perSecond)
        #expect(quantity.value == 2)
        #expect(quantity.doubleValue(for: perSecond) == 2)
    }
}

@Suite("HKUnit and HKQuantity traps", .timeLimit(.minutes(1)))
struct UnitTrapTests {
    @Test func initFromInvalidStringTraps() async {
        await #expect(processExitsWith: .failure) { _ = HKUnit(from: "furlong") }
    }

    @Test func combiningOffsetUnitTraps() async {
        await #expect(processExitsWith: .failure) { _ = HKUnit.degreeCelsius().unitDivided(by: .minute()) }
        await #expect(processExitsWith: .failure) { _ = HKUnit.decibelAWeightedSoundPressureLevel().reciprocal() }
    }

    @Test func incompatibleConversionTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = HKQuantity(unit: .count(), doubleValue: 1).doubleValue(for: .meter())
        }
    }

    @Test func incompatibleCompareTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = HKQuantity(unit: .count(), doubleValue: 1).compare(HKQuantity(unit: .second(), doubleValue: 1))
        }
    }
}
