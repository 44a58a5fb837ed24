import ArgumentParser
import Foundation
import OpenHealthKit

/// `--max-heart-rate` and `--resting-heart-rate`: heart-rate-reserve zones from these numbers instead of the person's
/// zones from the store (`replay`, `show --chart`).
struct HeartRateZoneOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp("Use zones from this maximum heart rate instead of your stored zones.", valueName: "BPM"))
    var maxHeartRate: Double?
    @Option(
        help: ArgumentHelp("Use zones from this resting heart rate instead of your stored zones.", valueName: "BPM"))
    var restingHeartRate: Double?

    /// Whether either was given.
    var isSet: Bool { maxHeartRate != nil || restingHeartRate != nil }

    /// Checks the overrides: positive, and the maximum clearly above the resting rate.
    func validate() throws {
        let rest = restingHeartRate ?? HKWorkoutZoneConfiguration.defaultRestingHeartRate
        let top = maxHeartRate ?? HKWorkoutZoneConfiguration.defaultMaximumHeartRate
        guard rest > 0, top > rest + 10 else {
            throw ValidationError("--max-heart-rate must be above --resting-heart-rate (by more than 10 bpm).")
        }
    }

    /// The zones to show: the overrides when given, else the store's preferred heart-rate zones.
    func resolve(store: HKHealthStore) async throws -> HeartRateZones {
        try await HeartRateZones.resolve(store: store, maximum: maxHeartRate, resting: restingHeartRate)
    }

    /// The overrides as a configuration for a builder, or nil when none was given.
    func configuration() throws -> HKWorkoutZoneConfiguration? {
        guard isSet else { return nil }
        return try .heartRateReserve(maximum: maxHeartRate, resting: restingHeartRate)
    }
}

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

    /// These zones as a configuration, to time a workout in with `HKHealthStore.zoneGroup(of:configuration:)`.
    func configuration() throws -> HKWorkoutZoneConfiguration {
        try HKWorkoutZoneConfiguration(
            quantityType: HKQuantityType(.heartRate),
            zoneBoundaries: boundaries.map { HKQuantity(unit: .count().unitDivided(by: .minute()), doubleValue: $0) })
    }

    init(boundaries: [Double], label: String) {
        self.boundaries = boundaries
        self.label = label
    }

    /// The percentages of the library's heart-rate-reserve zones, as a label says them: "60/70/80/90 %".
    static var reservePercentages: String {
        HKWorkoutZoneConfiguration.heartRateReserveFractions.map { "\(Int(($0 * 100).rounded()))" }.joined(
            separator: "/") + " %"
    }

    /// Heart-rate-reserve zones from a maximum and a resting heart rate (each defaulting as the library's do), by
    /// the library's rule (`HKWorkoutZoneConfiguration.heartRateReserve(maximum:resting:)`).
    init(maximum: Double?, resting: Double?) throws {
        let configuration = try HKWorkoutZoneConfiguration.heartRateReserve(maximum: maximum, resting: resting)
        let bpm = HKUnit.count().unitDivided(by: .minute())
        let boundaries = configuration.zones.dropLast().compactMap { $0.maximum?.doubleValue(for: bpm) }
        self.init(
            boundaries: boundaries,
            label:
                "heart-rate-reserve zones at \(Self.reservePercentages) (max \(Int(maximum ?? HKWorkoutZoneConfiguration.defaultMaximumHeartRate)), "
                + "rest \(Int(resting ?? HKWorkoutZoneConfiguration.defaultRestingHeartRate)) bpm; OpenHealthKit's percentages)"
        )
    }

    /// The zones to show: overrides when given, else the store's preferred heart-rate zones.
    static func resolve(store: HKHealthStore, maximum: Double?, resting: Double?) async throws -> HeartRateZones {
        if maximum != nil || resting != nil {
            return try HeartRateZones(maximum: maximum, resting: resting)
        }
        let bpm = HKUnit.count().unitDivided(by: .minute())
        guard let configuration = try await store.preferredWorkoutZoneConfiguration(for: HKQuantityType(.heartRate))
        else {
            return try HeartRateZones(maximum: nil, resting: nil)
        }
        let boundaries = configuration.zones.dropLast().compactMap { $0.maximum?.doubleValue(for: bpm) }
        let origin =
            configuration.source == .user
            ? "your own heart-rate zones"
            : "system heart-rate zones (heart-rate reserve at \(reservePercentages), OpenHealthKit's percentages; set yours with `workout profile`)"
        var zones = HeartRateZones(boundaries: boundaries, label: origin)
        zones.fromStore = true
        return zones
    }

    var count: Int { boundaries.count + 1 }
    var indices: Range<Int> { 0 ..< count }
    func name(_ zone: Int) -> String { "Z\(zone + 1)" }

    func range(of zone: Int) -> String { LiveView.range(zone, boundaries) }

    /// A heart-rate scale that shows every zone.
    var low: Double { (boundaries.first ?? 100) - 25 }
    var high: Double { (boundaries.last ?? 180) + 20 }
}
