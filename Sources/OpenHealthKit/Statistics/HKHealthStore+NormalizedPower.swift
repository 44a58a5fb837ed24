import Foundation

/// Normalized power (an OpenHealthKit extension; HealthKit has none).
///
/// The rule (Coggan's, as TrainingPeaks publishes it): power as a 1 Hz series, its 30-second trailing average, the
/// mean of that average's fourth powers, and the fourth root. OpenHealthKit's choices where the rule is silent: a
/// reading holds its value until the next one for at most 5 s (a longer silence is a dropout, left out of the
/// series, not zero watts); the first average is the one at the 30th second of data; with fewer than 30 seconds of
/// data there is no normalized power.
public enum NormalizedPower {
    /// How long a reading stands for at most.
    public static let hold: TimeInterval = 5

    /// Normalized power in watts of readings `(date, watts)` in time order; nil below 30 s of data.
    public static func watts(_ readings: [(date: Date, watts: Double)]) -> Double? {
        guard let first = readings.first, let last = readings.last else { return nil }
        var perSecond: [Double] = []
        perSecond.reserveCapacity(Int(last.date.timeIntervalSince(first.date)) + 1)
        var index = 0
        var second = first.date
        while second <= last.date {
            while index + 1 < readings.count, readings[index + 1].date <= second { index += 1 }
            if second.timeIntervalSince(readings[index].date) <= hold { perSecond.append(readings[index].watts) }
            second += 1
        }
        guard perSecond.count >= 30 else { return nil }
        var window = perSecond[0 ..< 30].reduce(0, +)
        var sum = pow(window / 30, 4)
        var count = 1.0
        for i in 30 ..< perSecond.count {
            window += perSecond[i] - perSecond[i - 30]
            sum += pow(window / 30, 4)
            count += 1
        }
        return pow(sum / count, 0.25)
    }
}

extension HKHealthStore {
    /// The normalized power of a workout's cycling power samples (see ``NormalizedPower``), or nil without 30 s
    /// of them. An OpenHealthKit extension.
    public func normalizedPower(for workout: HKWorkout) async throws -> HKQuantity? {
        let samples = try await HKSampleQueryDescriptor(
            predicates: [.quantitySample(type: HKQuantityType(.cyclingPower), predicate: HKQuery.predicateForObjects(from: workout))],
            sortDescriptors: [SortDescriptor(\.startDate)]).result(for: self)
        let readings = samples.map { (date: $0.startDate, watts: $0.quantity.doubleValue(for: .watt())) }
        return NormalizedPower.watts(readings).map { HKQuantity(unit: .watt(), doubleValue: $0) }
    }
}
