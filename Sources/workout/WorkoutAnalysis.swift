import Foundation
import OpenHealthKit

/// Heart-rate-reserve (Karvonen) zones, computed by the tool: zone k starts at `rest + p_k × (max − rest)` with
/// p = 50, 60, 70, 80, 90 %. Apple does not publish its percentages; these bands are OpenHealthKit's assumption
/// (see `zones-and-metrics.md`), and every display that uses them says so.
struct HeartRateReserveZones: Sendable {
    var maximum: Double
    var resting: Double
    static let fractions = [0.5, 0.6, 0.7, 0.8, 0.9]

    /// Lower bounds of zones 1…5 in bpm.
    var lowerBounds: [Double] { Self.fractions.map { resting + $0 * (maximum - resting) } }

    /// 0 below zone 1, else 1…5; half-open bounds, the last zone open above.
    func zone(for bpm: Double) -> Int {
        lowerBounds.lastIndex(where: { bpm >= $0 }).map { $0 + 1 } ?? 0
    }

    var label: String {
        "heart-rate-reserve zones, computed locally (50/60/70/80/90 % HRR, max \(Int(maximum)), rest \(Int(resting)); "
            + "OpenHealthKit's assumption, not Apple's)"
    }

    func range(of zone: Int) -> String {
        let bounds = lowerBounds.map { Int($0.rounded()) }
        switch zone {
        case 0: return "< \(bounds[0])"
        case 5: return "≥ \(bounds[4])"
        default: return "\(bounds[zone - 1])–\(bounds[zone] - 1)"
        }
    }
}

/// Figures computed from a saved workout's samples: normalized power and time in heart-rate zones per activity.
struct WorkoutAnalysis {
    /// A value that holds from `start` (zero-length readings hold until the next, at most `hold` seconds).
    struct Point {
        var start: Date
        var value: Double
    }

    /// How long a reading stands for at most: longer silences are dropouts, not time in a zone.
    static let hold: TimeInterval = 5

    /// Normalized power: a 1 Hz series (each reading holding ≤ 5 s, dropouts left out), its 30 s trailing
    /// average, the mean of that average's 4th powers from the 30th second on, and the 4th root.
    static func normalizedPower(_ points: [Point]) -> Double? {
        guard let first = points.first else { return nil }
        var perSecond: [Double] = []
        var index = 0
        var second = first.start
        let end = points.last!.start
        while second <= end {
            while index + 1 < points.count, points[index + 1].start <= second { index += 1 }
            if second.timeIntervalSince(points[index].start) <= hold { perSecond.append(points[index].value) }
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

    /// Seconds in each zone (index 0 = below zone 1) within `interval`; each reading holds until the next, ≤ 5 s.
    static func timeInZones(_ points: [Point], zones: HeartRateReserveZones, within interval: DateInterval) -> [TimeInterval] {
        var totals = [TimeInterval](repeating: 0, count: 6)
        for (i, point) in points.enumerated() {
            let next = i + 1 < points.count ? points[i + 1].start : point.start + hold
            let end = min(next, point.start + hold)
            let start = max(point.start, interval.start)
            let clipped = min(end, interval.end).timeIntervalSince(start)
            if clipped > 0 { totals[zones.zone(for: point.value)] += clipped }
        }
        return totals
    }

    /// The workout's samples of `identifier` in time order, in `unit`.
    static func points(_ identifier: HKQuantityTypeIdentifier, unit: HKUnit, of workout: HKWorkout,
                       store: HKHealthStore) async throws -> [Point] {
        let samples = try await HKSampleQueryDescriptor(
            predicates: [.quantitySample(type: HKQuantityType(identifier), predicate: HKQuery.predicateForObjects(from: workout))],
            sortDescriptors: [SortDescriptor(\.startDate)]).result(for: store)
        return samples.map { Point(start: $0.startDate, value: $0.quantity.doubleValue(for: unit)) }
    }
}
