import Foundation
import OpenHealthKit

/// Whether an alert compares the current value or the step's average. WorkoutKit: WorkoutAlertMetric.
public enum WorkoutAlertMetric: Hashable, Sendable {
    /// The current value.
    case current
    /// The average over the step.
    case average

    /// Counts per minute: the unit of heart-rate and cadence alerts.
    public static var countPerMinute: UnitFrequency { UnitFrequency.countPerMinute }
}

extension UnitFrequency {
    /// One count per minute, 1/60 Hz.
    static let countPerMinute = UnitFrequency(
        symbol: "count/min", converter: UnitConverterLinear(coefficient: 1.0 / 60))
}

/// A target a step watches: heart rate, power, cadence or speed, as a threshold, a range or a zone.
/// WorkoutKit: WorkoutAlert.
public protocol WorkoutAlert: Hashable, Sendable {
    /// Whether the alert compares the current value or the average.
    var metric: WorkoutAlertMetric { get }
    /// Whether the alert can be used in a workout of this activity and location.
    func supports(activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType) -> Bool
}

/// Two alerts are equal when they are the same type with equal values.
func alertsEqual(_ lhs: (any WorkoutAlert)?, _ rhs: (any WorkoutAlert)?) -> Bool {
    switch (lhs, rhs) {
    case (nil, nil): return true
    case (let lhs?, let rhs?): return AnyHashable(lhs) == AnyHashable(rhs)
    default: return false
    }
}

// MARK: - Heart rate

/// An alert when the heart rate leaves a range. WorkoutKit: HeartRateRangeAlert.
public struct HeartRateRangeAlert: WorkoutAlert {
    /// The range, in a frequency unit (count per minute: ``WorkoutAlertMetric/countPerMinute``).
    public var target: ClosedRange<Measurement<UnitFrequency>>
    /// Always ``WorkoutAlertMetric/current``.
    public var metric: WorkoutAlertMetric { .current }

    public init(target: ClosedRange<Measurement<UnitFrequency>>) { self.target = target }

    /// The lower bound in count/min.
    public var targetQuantityLowerBound: HKQuantity { AlertRules.beats(target.lowerBound) }
    /// The upper bound in count/min.
    public var targetQuantityUpperBound: HKQuantity { AlertRules.beats(target.upperBound) }

    public func supports(activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType) -> Bool {
        AlertRules.heartRate(activity: activity)
    }
}

/// An alert when the heart rate leaves a zone of the person's heart-rate zones. WorkoutKit: HeartRateZoneAlert.
public struct HeartRateZoneAlert: WorkoutAlert {
    /// The zone, from 1.
    public var zone: Int
    /// Always ``WorkoutAlertMetric/current``.
    public var metric: WorkoutAlertMetric { .current }

    public init(zone: Int) { self.zone = zone }

    public func supports(activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType) -> Bool {
        AlertRules.heartRate(activity: activity)
    }
}

extension WorkoutAlert where Self == HeartRateRangeAlert {
    /// A heart-rate range alert, in `unit` (count per minute unless given).
    public static func heartRate(
        _ target: ClosedRange<Double>, unit: UnitFrequency = WorkoutAlertMetric.countPerMinute
    )
        -> Self
    {
        HeartRateRangeAlert(target: AlertRules.range(target, unit))
    }
}

extension WorkoutAlert where Self == HeartRateZoneAlert {
    /// A heart-rate zone alert.
    public static func heartRate(zone: Int) -> Self { HeartRateZoneAlert(zone: zone) }
}

// MARK: - Cadence

/// An alert when the cadence falls below a value. WorkoutKit: CadenceThresholdAlert.
public struct CadenceThresholdAlert: WorkoutAlert {
    /// The threshold, in a frequency unit (count per minute: ``WorkoutAlertMetric/countPerMinute``).
    public var target: Measurement<UnitFrequency>
    /// Always ``WorkoutAlertMetric/current``.
    public var metric: WorkoutAlertMetric { .current }

    public init(target: Measurement<UnitFrequency>) { self.target = target }

    /// The threshold in count/min.
    public var targetQuantity: HKQuantity { AlertRules.beats(target) }

    public func supports(activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType) -> Bool {
        AlertRules.cadence(activity: activity, location: location)
    }
}

/// An alert when the cadence leaves a range. WorkoutKit: CadenceRangeAlert.
public struct CadenceRangeAlert: WorkoutAlert {
    /// The range, in a frequency unit (count per minute: ``WorkoutAlertMetric/countPerMinute``).
    public var target: ClosedRange<Measurement<UnitFrequency>>
    /// Always ``WorkoutAlertMetric/current``.
    public var metric: WorkoutAlertMetric { .current }

    public init(target: ClosedRange<Measurement<UnitFrequency>>) { self.target = target }

    /// The lower bound in count/min.
    public var targetQuantityLowerBound: HKQuantity { AlertRules.beats(target.lowerBound) }
    /// The upper bound in count/min.
    public var targetQuantityUpperBound: HKQuantity { AlertRules.beats(target.upperBound) }

    public func supports(activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType) -> Bool {
        AlertRules.cadence(activity: activity, location: location)
    }
}

extension WorkoutAlert where Self == CadenceThresholdAlert {
    /// A cadence threshold alert, in `unit` (count per minute unless given).
    public static func cadence(_ target: Double, unit: UnitFrequency = WorkoutAlertMetric.countPerMinute) -> Self {
        CadenceThresholdAlert(target: Measurement(value: target, unit: unit))
    }
}

extension WorkoutAlert where Self == CadenceRangeAlert {
    /// A cadence range alert, in `unit` (count per minute unless given).
    public static func cadence(
        _ target: ClosedRange<Double>, unit: UnitFrequency = WorkoutAlertMetric.countPerMinute
    )
        -> Self
    {
        CadenceRangeAlert(target: AlertRules.range(target, unit))
    }
}

// MARK: - Power

/// An alert when the power falls below a value. WorkoutKit: PowerThresholdAlert.
public struct PowerThresholdAlert: WorkoutAlert {
    /// The threshold.
    public var target: Measurement<UnitPower>
    /// The current power or the step's average.
    public var metric: WorkoutAlertMetric

    public init(target: Measurement<UnitPower>) { self.init(target: target, metric: .current) }

    public init(target: Measurement<UnitPower>, metric: WorkoutAlertMetric) {
        self.target = target
        self.metric = metric
    }

    /// The threshold in watts.
    public var targetQuantity: HKQuantity { AlertRules.watts(target) }

    public func supports(activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType) -> Bool {
        AlertRules.power(activity: activity)
    }
}

/// An alert when the power leaves a range. WorkoutKit: PowerRangeAlert.
public struct PowerRangeAlert: WorkoutAlert {
    /// The range.
    public var target: ClosedRange<Measurement<UnitPower>>
    /// The current power or the step's average.
    public var metric: WorkoutAlertMetric

    public init(target: ClosedRange<Measurement<UnitPower>>) { self.init(target: target, metric: .current) }

    public init(target: ClosedRange<Measurement<UnitPower>>, metric: WorkoutAlertMetric) {
        self.target = target
        self.metric = metric
    }

    /// The lower bound in watts.
    public var targetQuantityLowerBound: HKQuantity { AlertRules.watts(target.lowerBound) }
    /// The upper bound in watts.
    public var targetQuantityUpperBound: HKQuantity { AlertRules.watts(target.upperBound) }

    public func supports(activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType) -> Bool {
        AlertRules.power(activity: activity)
    }
}

/// An alert when the power leaves a zone of the person's power zones. WorkoutKit: PowerZoneAlert.
public struct PowerZoneAlert: WorkoutAlert {
    /// The zone, from 1.
    public var zone: Int
    /// Always ``WorkoutAlertMetric/current``.
    public var metric: WorkoutAlertMetric { .current }

    public init(zone: Int) { self.zone = zone }

    public func supports(activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType) -> Bool {
        AlertRules.power(activity: activity)
    }
}

extension WorkoutAlert where Self == PowerThresholdAlert {
    /// A power threshold alert on the current power.
    public static func power(_ target: Double, unit: UnitPower) -> Self {
        PowerThresholdAlert(target: Measurement(value: target, unit: unit))
    }

    /// A power threshold alert on the current or average power.
    public static func power(_ target: Double, unit: UnitPower, metric: WorkoutAlertMetric) -> Self {
        PowerThresholdAlert(target: Measurement(value: target, unit: unit), metric: metric)
    }
}

extension WorkoutAlert where Self == PowerRangeAlert {
    /// A power range alert on the current power.
    public static func power(_ target: ClosedRange<Double>, unit: UnitPower) -> Self {
        PowerRangeAlert(target: AlertRules.range(target, unit))
    }

    /// A power range alert on the current or average power.
    public static func power(_ target: ClosedRange<Double>, unit: UnitPower, metric: WorkoutAlertMetric) -> Self {
        PowerRangeAlert(target: AlertRules.range(target, unit), metric: metric)
    }
}

extension WorkoutAlert where Self == PowerZoneAlert {
    /// A power zone alert.
    public static func power(zone: Int) -> Self { PowerZoneAlert(zone: zone) }
}

// MARK: - Speed

/// An alert when the speed falls below a value. WorkoutKit: SpeedThresholdAlert.
public struct SpeedThresholdAlert: WorkoutAlert {
    /// The threshold.
    public var target: Measurement<UnitSpeed>
    /// The current speed or the step's average.
    public var metric: WorkoutAlertMetric

    public init(target: Measurement<UnitSpeed>, metric: WorkoutAlertMetric) {
        self.target = target
        self.metric = metric
    }

    /// The threshold in m/s.
    public var targetQuantity: HKQuantity { AlertRules.metresPerSecond(target) }

    public func supports(activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType) -> Bool {
        AlertRules.speed(activity: activity, location: location)
    }
}

/// An alert when the speed leaves a range. WorkoutKit: SpeedRangeAlert.
public struct SpeedRangeAlert: WorkoutAlert {
    /// The range.
    public var target: ClosedRange<Measurement<UnitSpeed>>
    /// The current speed or the step's average.
    public var metric: WorkoutAlertMetric

    public init(target: ClosedRange<Measurement<UnitSpeed>>, metric: WorkoutAlertMetric) {
        self.target = target
        self.metric = metric
    }

    /// The lower bound in m/s.
    public var targetQuantityLowerBound: HKQuantity { AlertRules.metresPerSecond(target.lowerBound) }
    /// The upper bound in m/s.
    public var targetQuantityUpperBound: HKQuantity { AlertRules.metresPerSecond(target.upperBound) }

    public func supports(activity: HKWorkoutActivityType, location: HKWorkoutSessionLocationType) -> Bool {
        AlertRules.speed(activity: activity, location: location)
    }
}

extension WorkoutAlert where Self == SpeedThresholdAlert {
    /// A speed threshold alert.
    public static func speed(_ target: Double, unit: UnitSpeed, metric: WorkoutAlertMetric = .current) -> Self {
        SpeedThresholdAlert(target: Measurement(value: target, unit: unit), metric: metric)
    }
}

extension WorkoutAlert where Self == SpeedRangeAlert {
    /// A speed range alert.
    public static func speed(
        _ target: ClosedRange<Double>, unit: UnitSpeed, metric: WorkoutAlertMetric = .current
    )
        -> Self
    {
        SpeedRangeAlert(target: AlertRules.range(target, unit), metric: metric)
    }
}
