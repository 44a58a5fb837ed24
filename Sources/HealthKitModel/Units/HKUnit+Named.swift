import Foundation

/// HealthKit's named units. Each returns the same unit as `HKUnit(from:)` with the string shown.
extension HKUnit {
    // MARK: Mass

    /// Grams with a metric prefix (`kg`, `mg`, `mcg`).
    ///
    /// HealthKit: HKUnit.gramUnit(with:).
    public class func gramUnit(with prefix: HKMetricPrefix) -> Self { self.init(from: prefix.symbol + "g") }

    /// Grams (`g`).
    ///
    /// HealthKit: HKUnit.gram().
    public class func gram() -> Self { self.init(from: "g") }

    /// Avoirdupois ounces (`oz`), 1/16 lb.
    ///
    /// HealthKit: HKUnit.ounce().
    public class func ounce() -> Self { self.init(from: "oz") }

    /// Avoirdupois pounds (`lb`), 453.59237 g.
    ///
    /// HealthKit: HKUnit.pound().
    public class func pound() -> Self { self.init(from: "lb") }

    /// Stones (`st`), 14 lb.
    ///
    /// HealthKit: HKUnit.stone().
    public class func stone() -> Self { self.init(from: "st") }

    /// Moles of a substance with the given molar mass in g/mol (`mmol<180.15588000005408>`); convertible to grams.
    ///
    /// HealthKit: HKUnit.moleUnit(with:molarMass:).
    public class func moleUnit(with prefix: HKMetricPrefix, molarMass gramsPerMole: Double) -> Self {
        self.init(from: prefix.symbol + "mol<\(formatUnitNumber(gramsPerMole))>")
    }

    /// Moles of a substance with the given molar mass in g/mol.
    ///
    /// HealthKit: HKUnit.moleUnit(withMolarMass:).
    public class func moleUnit(withMolarMass gramsPerMole: Double) -> Self {
        self.init(from: "mol<\(formatUnitNumber(gramsPerMole))>")
    }

    // MARK: Length

    /// Meters with a metric prefix (`km`, `cm`).
    ///
    /// HealthKit: HKUnit.meterUnit(with:).
    public class func meterUnit(with prefix: HKMetricPrefix) -> Self { self.init(from: prefix.symbol + "m") }

    /// Meters (`m`).
    ///
    /// HealthKit: HKUnit.meter().
    public class func meter() -> Self { self.init(from: "m") }

    /// Inches (`in`), 0.0254 m.
    ///
    /// HealthKit: HKUnit.inch().
    public class func inch() -> Self { self.init(from: "in") }

    /// Feet (`ft`), 0.3048 m.
    ///
    /// HealthKit: HKUnit.foot().
    public class func foot() -> Self { self.init(from: "ft") }

    /// Yards (`yd`), 0.9144 m.
    ///
    /// HealthKit: HKUnit.yard().
    public class func yard() -> Self { self.init(from: "yd") }

    /// Miles (`mi`), 1609.344 m.
    ///
    /// HealthKit: HKUnit.mile().
    public class func mile() -> Self { self.init(from: "mi") }

    // MARK: Volume

    /// Liters with a metric prefix (`mL`, `dL`).
    ///
    /// HealthKit: HKUnit.literUnit(with:).
    public class func literUnit(with prefix: HKMetricPrefix) -> Self { self.init(from: prefix.symbol + "L") }

    /// Liters (`L`).
    ///
    /// HealthKit: HKUnit.liter().
    public class func liter() -> Self { self.init(from: "L") }

    /// US fluid ounces (`fl_oz_us`), 29.5735295625 mL.
    ///
    /// HealthKit: HKUnit.fluidOunceUS().
    public class func fluidOunceUS() -> Self { self.init(from: "fl_oz_us") }

    /// Imperial fluid ounces (`fl_oz_imp`), 28.4130625 mL.
    ///
    /// HealthKit: HKUnit.fluidOunceImperial().
    public class func fluidOunceImperial() -> Self { self.init(from: "fl_oz_imp") }

    /// US pints (`pt_us`), 16 US fl oz.
    ///
    /// HealthKit: HKUnit.pintUS().
    public class func pintUS() -> Self { self.init(from: "pt_us") }

    /// Imperial pints (`pt_imp`), 20 imperial fl oz.
    ///
    /// HealthKit: HKUnit.pintImperial().
    public class func pintImperial() -> Self { self.init(from: "pt_imp") }

    /// US cups (`cup_us`), 8 US fl oz.
    ///
    /// HealthKit: HKUnit.cupUS().
    public class func cupUS() -> Self { self.init(from: "cup_us") }

    /// Imperial cups (`cup_imp`), 10 imperial fl oz.
    ///
    /// HealthKit: HKUnit.cupImperial().
    public class func cupImperial() -> Self { self.init(from: "cup_imp") }

    // MARK: Pressure

    /// Pascals with a metric prefix (`kPa`).
    ///
    /// HealthKit: HKUnit.pascalUnit(with:).
    public class func pascalUnit(with prefix: HKMetricPrefix) -> Self { self.init(from: prefix.symbol + "Pa") }

    /// Pascals (`Pa`).
    ///
    /// HealthKit: HKUnit.pascal().
    public class func pascal() -> Self { self.init(from: "Pa") }

    /// Millimeters of mercury (`mmHg`), 133.322387415 Pa.
    ///
    /// HealthKit: HKUnit.millimeterOfMercury().
    public class func millimeterOfMercury() -> Self { self.init(from: "mmHg") }

    /// Centimeters of water (`cmAq`), 98.0665 Pa.
    ///
    /// HealthKit: HKUnit.centimeterOfWater().
    public class func centimeterOfWater() -> Self { self.init(from: "cmAq") }

    /// Standard atmospheres (`atm`), 101325 Pa.
    ///
    /// HealthKit: HKUnit.atmosphere().
    public class func atmosphere() -> Self { self.init(from: "atm") }

    /// Inches of mercury (`inHg`), 3386.389 Pa.
    ///
    /// HealthKit: HKUnit.inchesOfMercury().
    public class func inchesOfMercury() -> Self { self.init(from: "inHg") }

    /// A-weighted sound pressure level in decibels (`dBASPL`); converts to pressure with a 20 µPa reference.
    ///
    /// HealthKit: HKUnit.decibelAWeightedSoundPressureLevel().
    public class func decibelAWeightedSoundPressureLevel() -> Self { self.init(from: "dBASPL") }

    // MARK: Time

    /// Seconds with a metric prefix (`ms`).
    ///
    /// HealthKit: HKUnit.secondUnit(with:).
    public class func secondUnit(with prefix: HKMetricPrefix) -> Self { self.init(from: prefix.symbol + "s") }

    /// Seconds (`s`).
    ///
    /// HealthKit: HKUnit.second().
    public class func second() -> Self { self.init(from: "s") }

    /// Minutes (`min`).
    ///
    /// HealthKit: HKUnit.minute().
    public class func minute() -> Self { self.init(from: "min") }

    /// Hours (`hr`).
    ///
    /// HealthKit: HKUnit.hour().
    public class func hour() -> Self { self.init(from: "hr") }

    /// Days (`d`), 86400 s.
    ///
    /// HealthKit: HKUnit.day().
    public class func day() -> Self { self.init(from: "d") }

    // MARK: Energy

    /// Joules with a metric prefix (`kJ`).
    ///
    /// HealthKit: HKUnit.jouleUnit(with:).
    public class func jouleUnit(with prefix: HKMetricPrefix) -> Self { self.init(from: prefix.symbol + "J") }

    /// Joules (`J`).
    ///
    /// HealthKit: HKUnit.joule().
    public class func joule() -> Self { self.init(from: "J") }

    /// Kilocalories (`kcal`), 4184 J.
    ///
    /// HealthKit: HKUnit.kilocalorie().
    public class func kilocalorie() -> Self { self.init(from: "kcal") }

    /// Small calories (`cal`), 4.184 J.
    ///
    /// HealthKit: HKUnit.smallCalorie().
    public class func smallCalorie() -> Self { self.init(from: "cal") }

    /// Large (food) calories (`Cal`), 4184 J.
    ///
    /// HealthKit: HKUnit.largeCalorie().
    public class func largeCalorie() -> Self { self.init(from: "Cal") }

    /// Calories (`cal`), 4.184 J. Deprecated by Apple as ambiguous.
    ///
    /// HealthKit: HKUnit.calorie().
    @available(*, deprecated, message: "Use smallCalorie() or largeCalorie(), depending on which you mean")
    public class func calorie() -> Self { self.init(from: "cal") }

    // MARK: Temperature

    /// Degrees Celsius (`degC`); valid only on its own.
    ///
    /// HealthKit: HKUnit.degreeCelsius().
    public class func degreeCelsius() -> Self { self.init(from: "degC") }

    /// Degrees Fahrenheit (`degF`); valid only on its own.
    ///
    /// HealthKit: HKUnit.degreeFahrenheit().
    public class func degreeFahrenheit() -> Self { self.init(from: "degF") }

    /// Kelvins (`K`).
    ///
    /// HealthKit: HKUnit.kelvin().
    public class func kelvin() -> Self { self.init(from: "K") }

    // MARK: Electrical conductance, frequency, potential and power

    /// Siemens with a metric prefix (`mS`).
    ///
    /// HealthKit: HKUnit.siemenUnit(with:).
    public class func siemenUnit(with prefix: HKMetricPrefix) -> Self { self.init(from: prefix.symbol + "S") }

    /// Siemens (`S`).
    ///
    /// HealthKit: HKUnit.siemen().
    public class func siemen() -> Self { self.init(from: "S") }

    /// Hertz with a metric prefix (`kHz`).
    ///
    /// HealthKit: HKUnit.hertzUnit(with:).
    public class func hertzUnit(with prefix: HKMetricPrefix) -> Self { self.init(from: prefix.symbol + "Hz") }

    /// Hertz (`Hz`), compatible with `count/s`.
    ///
    /// HealthKit: HKUnit.hertz().
    public class func hertz() -> Self { self.init(from: "Hz") }

    /// Volts with a metric prefix (`mV`).
    ///
    /// HealthKit: HKUnit.voltUnit(with:).
    public class func voltUnit(with prefix: HKMetricPrefix) -> Self { self.init(from: prefix.symbol + "V") }

    /// Volts (`V`).
    ///
    /// HealthKit: HKUnit.volt().
    public class func volt() -> Self { self.init(from: "V") }

    /// Watts with a metric prefix (`kW`).
    ///
    /// HealthKit: HKUnit.wattUnit(with:).
    public class func wattUnit(with prefix: HKMetricPrefix) -> Self { self.init(from: prefix.symbol + "W") }

    /// Watts (`W`).
    ///
    /// HealthKit: HKUnit.watt().
    public class func watt() -> Self { self.init(from: "W") }

    // MARK: Scalars, hearing, optics, angles, light and effort

    /// International units (`IU`).
    ///
    /// HealthKit: HKUnit.internationalUnit().
    public class func internationalUnit() -> Self { self.init(from: "IU") }

    /// A count of things (`count`); dimensionless.
    ///
    /// HealthKit: HKUnit.count().
    public class func count() -> Self { self.init(from: "count") }

    /// Percent (`%`). Values are fractions 0.0–1.0, so it converts 1:1 with `count`.
    ///
    /// HealthKit: HKUnit.percent().
    public class func percent() -> Self { self.init(from: "%") }

    /// Decibels of hearing level (`dBHL`); valid only on its own.
    ///
    /// HealthKit: HKUnit.decibelHearingLevel().
    public class func decibelHearingLevel() -> Self { self.init(from: "dBHL") }

    /// Diopters (`D`), the optical power of a lens; compatible with `m^-1`.
    ///
    /// HealthKit: HKUnit.diopter().
    public class func diopter() -> Self { self.init(from: "D") }

    /// Prism diopters (`pD`), the prismatic deviation of a lens.
    ///
    /// HealthKit: HKUnit.prismDiopter().
    public class func prismDiopter() -> Self { self.init(from: "pD") }

    /// Radians with a metric prefix (`mrad`).
    ///
    /// HealthKit: HKUnit.radianAngleUnit(with:).
    public class func radianAngleUnit(with prefix: HKMetricPrefix) -> Self { self.init(from: prefix.symbol + "rad") }

    /// Radians (`rad`).
    ///
    /// HealthKit: HKUnit.radianAngle().
    public class func radianAngle() -> Self { self.init(from: "rad") }

    /// Degrees of angle (`deg`), π/180 rad.
    ///
    /// HealthKit: HKUnit.degreeAngle().
    public class func degreeAngle() -> Self { self.init(from: "deg") }

    /// Lux with a metric prefix (`klx`).
    ///
    /// HealthKit: HKUnit.luxUnit(with:).
    public class func luxUnit(with prefix: HKMetricPrefix) -> Self { self.init(from: prefix.symbol + "lx") }

    /// Lux (`lx`).
    ///
    /// HealthKit: HKUnit.lux().
    public class func lux() -> Self { self.init(from: "lx") }

    /// Apple's workout effort score (`appleEffortScore`).
    ///
    /// HealthKit: HKUnit.appleEffortScore().
    public class func appleEffortScore() -> Self { self.init(from: "appleEffortScore") }
}

/// The molar mass of blood glucose in grams per mole, for `HKUnit.moleUnit(with:molarMass:)`.
///
/// HealthKit: HKUnitMolarMassBloodGlucose.
public let HKUnitMolarMassBloodGlucose: Double = 180.15588000005408
