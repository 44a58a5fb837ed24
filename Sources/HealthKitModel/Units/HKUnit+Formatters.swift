import Foundation

// HKUnit and Foundation's mass, length and energy formatter units, both ways. HealthKit: HKUnit (Foundation
// formatter support).

extension HKUnit {
    /// The unit of a mass formatter unit. HealthKit: HKUnit.init(from: MassFormatter.Unit).
    public convenience init(from massFormatterUnit: MassFormatter.Unit) {
        switch massFormatterUnit {
        case .gram: self.init(from: "g")
        case .kilogram: self.init(from: "kg")
        case .ounce: self.init(from: "oz")
        case .pound: self.init(from: "lb")
        case .stone: self.init(from: "st")
        @unknown default: self.init(from: "g")
        }
    }

    /// The unit of a length formatter unit. HealthKit: HKUnit.init(from: LengthFormatter.Unit).
    public convenience init(from lengthFormatterUnit: LengthFormatter.Unit) {
        switch lengthFormatterUnit {
        case .millimeter: self.init(from: "mm")
        case .centimeter: self.init(from: "cm")
        case .meter: self.init(from: "m")
        case .kilometer: self.init(from: "km")
        case .inch: self.init(from: "in")
        case .foot: self.init(from: "ft")
        case .yard: self.init(from: "yd")
        case .mile: self.init(from: "mi")
        @unknown default: self.init(from: "m")
        }
    }

    /// The unit of an energy formatter unit (`.calorie` is the small calorie, `.kilocalorie` the food calorie).
    /// HealthKit: HKUnit.init(from: EnergyFormatter.Unit).
    public convenience init(from energyFormatterUnit: EnergyFormatter.Unit) {
        switch energyFormatterUnit {
        case .joule: self.init(from: "J")
        case .kilojoule: self.init(from: "kJ")
        case .calorie: self.init(from: "cal")
        case .kilocalorie: self.init(from: "kcal")
        @unknown default: self.init(from: "J")
        }
    }

    /// The mass formatter unit of a unit. Traps for a unit that is not one of them, as HealthKit raises.
    /// HealthKit: HKUnit.massFormatterUnit(from:).
    public class func massFormatterUnit(from unit: HKUnit) -> MassFormatter.Unit {
        let units: [MassFormatter.Unit] = [.gram, .kilogram, .ounce, .pound, .stone]
        guard let found = units.first(where: { HKUnit(from: $0) == unit }) else {
            fatalError("OpenHealthKit: \(unit.unitString) is not a mass formatter unit (g, kg, oz, lb, st)")
        }
        return found
    }

    /// The length formatter unit of a unit. Traps for a unit that is not one of them, as HealthKit raises.
    /// HealthKit: HKUnit.lengthFormatterUnit(from:).
    public class func lengthFormatterUnit(from unit: HKUnit) -> LengthFormatter.Unit {
        let units: [LengthFormatter.Unit] = [.millimeter, .centimeter, .meter, .kilometer, .inch, .foot, .yard, .mile]
        guard let found = units.first(where: { HKUnit(from: $0) == unit }) else {
            fatalError(
                "OpenHealthKit: \(unit.unitString) is not a length formatter unit (mm, cm, m, km, in, ft, yd, mi)")
        }
        return found
    }

    /// The energy formatter unit of a unit. Traps for a unit that is not one of them, as HealthKit raises.
    /// HealthKit: HKUnit.energyFormatterUnit(from:).
    public class func energyFormatterUnit(from unit: HKUnit) -> EnergyFormatter.Unit {
        let units: [EnergyFormatter.Unit] = [.joule, .kilojoule, .calorie, .kilocalorie]
        guard let found = units.first(where: { HKUnit(from: $0) == unit }) else {
            fatalError("OpenHealthKit: \(unit.unitString) is not an energy formatter unit (J, kJ, cal, kcal)")
        }
        return found
    }
}
