import Foundation
import HealthKitModel

/// The figures of each step of a plan a workout was recorded with: the one rule for the summary's step table.
/// OpenHealthKit (HealthKit keeps segments as events, with no statistics).
///
/// A step is a `.segment` event that names it (``PlanRunner/stepNameMetadataKey``, as a live recording's plan writes
/// them), with its target (``PlanRunner/targetPowerMetadataKey``) when it had one. Its figures come from the power
/// readings in its span:
/// - the average power is the mean of the readings, as a lap's;
/// - the 3 s maximum is the highest mean of the readings within 3 s up to each reading;
/// - the time in range is the time the power was within ``tolerance`` of the target, each reading holding until
///   the next one, at most ``hold`` seconds.
public struct PlanStepFigures: Sendable, Equatable {
    /// How far from the target a power is still in range: 5 %.
    public static let tolerance = 0.05
    /// The longest a reading holds when the next one is late, in seconds.
    public static let hold: TimeInterval = 3

    public var name: String
    /// When the step ran.
    public var interval: DateInterval
    /// The step's target power, in watts, when it had one.
    public var target: Double?
    /// Watts, nil without readings.
    public var averagePower: Double?
    public var maximumThreeSecondPower: Double?
    /// Seconds within ``tolerance`` of the target; nil without a target.
    public var timeInRange: TimeInterval?

    /// The steps among `events`, in time order, with their figures from `power` (readings in time order, watts).
    public static func steps(of events: [HKWorkoutEvent], power: [(date: Date, watts: Double)]) -> [PlanStepFigures] {
        let segments = events.filter { $0.type == .segment }.compactMap { event -> (String, DateInterval, Double?)? in
            guard let name = event.metadata?[PlanRunner.stepNameMetadataKey] as? String else { return nil }
            let target = (event.metadata?[PlanRunner.targetPowerMetadataKey] as? HKQuantity)?.doubleValue(for: .watt())
            return (name, event.dateInterval, target)
        }
        return segments.sorted { $0.1.start < $1.1.start }.map { name, interval, target in
            let readings = power.filter { $0.date >= interval.start && $0.date < interval.end }
            var figures = PlanStepFigures(name: name, interval: interval, target: target)
            guard !readings.isEmpty else {
                figures.timeInRange = target.map { _ in 0 }
                return figures
            }
            figures.averagePower = readings.map(\.watts).reduce(0, +) / Double(readings.count)
            var best = -Double.infinity
            var first = 0
            var sum = 0.0
            for (index, reading) in readings.enumerated() {
                sum += reading.watts
                while reading.date.timeIntervalSince(readings[first].date) >= 3 {
                    sum -= readings[first].watts
                    first += 1
                }
                best = max(best, sum / Double(index - first + 1))
            }
            figures.maximumThreeSecondPower = best
            if let target {
                var seconds = 0.0
                for (index, reading) in readings.enumerated() {
                    let next = index + 1 < readings.count ? readings[index + 1].date : interval.end
                    let held = min(hold, next.timeIntervalSince(reading.date))
                    if abs(reading.watts - target) <= tolerance * target { seconds += held }
                }
                figures.timeInRange = seconds
            }
            return figures
        }
    }

    public init(
        name: String, interval: DateInterval, target: Double?, averagePower: Double? = nil,
        maximumThreeSecondPower: Double? = nil, timeInRange: TimeInterval? = nil
    ) {
        self.name = name
        self.interval = interval
        self.target = target
        self.averagePower = averagePower
        self.maximumThreeSecondPower = maximumThreeSecondPower
        self.timeInRange = timeInRange
    }
}
