import Foundation
import OpenHealthKit

/// The heart-rate zones the tool shows: by default the person's zones from the store (their own if set, else the
/// system zones: heart-rate reserve at 60/70/80/90 %, as `HKHealthStore.preferredWorkoutZoneConfiguration(for:)`
/// gives them, the same zones the builder times a workout in); with `--max-heart-rate`/`--resting-heart-rate`, the
/// same heart-rate-reserve rule on those numbers. Zone names follow Apple's: Z1 is the lowest (index 0).
struct HeartRateZones: Sendable {
    /// Upper thresholds in bpm, ascending: zone i covers [boundaries[i-1], boundaries[i]).
    var boundaries: [Double]
    var label: String
    /// Whether these are the store's zones, the ones the builder timed the workout in (`zoneGroup(for:)`).
    var fromStore = false

    static let reserveFractions = [0.6, 0.7, 0.8, 0.9]

    init(boundaries: [Double], label: String) {
        self.boundaries = boundaries
        self.label = label
    }

    /// Heart-rate-reserve zones from a maximum and a resting heart rate.
    init(maximum: Double, resting: Double) {
        self.init(boundaries: Self.reserveFractions.map { resting + $0 * (maximum - resting) },
                  label: "heart-rate-reserve zones at 60/70/80/90 % (max \(Int(maximum)), rest \(Int(resting)) bpm; OpenHealthKit's percentages)")
    }

    /// The zones to show: overrides when given, else the store's preferred heart-rate zones.
    static func resolve(store: HKHealthStore, maximum: Double?, resting: Double?) async throws -> HeartRateZones {
        if maximum != nil || resting != nil {
            return HeartRateZones(maximum: maximum ?? 180, resting: resting ?? 72)
        }
        let bpm = HKUnit.count().unitDivided(by: .minute())
        guard let configuration = try await store.preferredWorkoutZoneConfiguration(for: HKQuantityType(.heartRate)) else {
            return HeartRateZones(maximum: 180, resting: 72)
        }
        let boundaries = configuration.zones.dropLast().compactMap { $0.maximum?.doubleValue(for: bpm) }
        let origin = configuration.source == .user ? "your own heart-rate zones" : "system heart-rate zones (heart-rate reserve at 60/70/80/90 %, OpenHealthKit's percentages; set yours with `workout profile`)"
        var zones = HeartRateZones(boundaries: boundaries, label: origin)
        zones.fromStore = true
        return zones
    }

    var count: Int { boundaries.count + 1 }
    var indices: Range<Int> { 0 ..< count }
    func name(_ zone: Int) -> String { "Z\(zone + 1)" }

    /// The zone of a heart rate: bounds are min-inclusive, max-exclusive.
    func zone(for bpm: Double) -> Int {
        boundaries.firstIndex(where: { bpm < $0 }) ?? boundaries.count
    }

    func range(of zone: Int) -> String {
        let bounds = boundaries.map { Int($0.rounded()) }
        if zone == 0 { return "< \(bounds[0])" }
        if zone == count - 1 { return "≥ \(bounds[zone - 1])" }
        return "\(bounds[zone - 1])–\(bounds[zone] - 1)"
    }

    /// A heart-rate scale that shows every zone.
    var low: Double { (boundaries.first ?? 100) - 25 }
    var high: Double { (boundaries.last ?? 180) + 20 }
}

/// Figures computed from a saved workout's samples for zones given on the command line (time in them per activity);
/// normalized power comes from the library (`HKHealthStore.normalizedPower(for:)`).
struct WorkoutAnalysis {
    /// A value that holds from `start` (zero-length readings hold until the next, at most `hold` seconds).
    struct Point {
        var start: Date
        var value: Double
    }

    /// How long a reading stands for at most: longer silences are dropouts, not time in a zone.
    static let hold: TimeInterval = NormalizedPower.hold

    /// Seconds in each zone within `interval`; each reading holds until the next, ≤ 5 s.
    static func timeInZones(_ points: [Point], zones: HeartRateZones, within interval: DateInterval) -> [TimeInterval] {
        var totals = [TimeInterval](repeating: 0, count: zones.count)
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
