import FitnessSensors
import Foundation
import HealthKitModel

extension LiveWorkoutFigures {
    private static let bpm = HKUnit.count().unitDivided(by: .minute())

    /// Time not paused at `date`: ``elapsedTime``, plus, while the session runs, the time since the figures were read
    /// (a companion's view between two figures; nothing for figures read at `date`). OpenHealthKit.
    public func elapsedTime(at date: Date, running: Bool) -> TimeInterval {
        elapsedTime + (running ? max(0, date.timeIntervalSince(self.date)) : 0)
    }

    /// Time not paused since the end of the last lap (or the start) at `date`, read as ``elapsedTime(at:running:)``.
    /// OpenHealthKit.
    public func lapElapsedTime(at date: Date, running: Bool) -> TimeInterval {
        max(0, elapsedTime(at: date, running: running) - elapsedTimeAtLastLap)
    }

    /// The most recent value of `type` in `unit`, when it was measured no more than `maximumAge` before `date`.
    /// OpenHealthKit.
    public func mostRecentValue(
        of type: HKQuantityType, in unit: HKUnit, at date: Date, maximumAge: TimeInterval
    ) -> Double? {
        guard let value = mostRecent[type], date.timeIntervalSince(value.date) <= maximumAge else { return nil }
        return value.quantity.doubleValue(for: unit)
    }

    /// ``threeSecondPower`` in watts, when the figures were read no more than `maximumAge` before `date`.
    /// OpenHealthKit.
    public func threeSecondPower(at date: Date, maximumAge: TimeInterval) -> Double? {
        date.timeIntervalSince(self.date) <= maximumAge ? threeSecondPower?.doubleValue(for: .watt()) : nil
    }

    /// Whether the cadence is a run's, in steps a minute (``runningCadence``): steps are counted and no ride's cadence
    /// is collected. OpenHealthKit.
    public var cadenceIsRunning: Bool {
        !collectedTypes.contains(HKQuantityType(.cyclingCadence)) && mostRecent[HKQuantityType(.stepCount)] != nil
    }

    /// The cadence at `date`: a run's (``runningCadence``, steps/min, when the figures were read no more than
    /// `maximumAge` before) or a ride's (the most recent cycling cadence no older than `maximumAge`, rpm).
    /// OpenHealthKit.
    public func cadence(at date: Date, maximumAge: TimeInterval) -> Double? {
        guard cadenceIsRunning else {
            return mostRecentValue(of: HKQuantityType(.cyclingCadence), in: Self.bpm, at: date, maximumAge: maximumAge)
        }
        guard date.timeIntervalSince(self.date) <= maximumAge else { return nil }
        return runningCadence?.doubleValue(for: RunningCadence.unit)
    }

    /// The speed at `date` in metres per second: a ride's, else a run's, no older than `maximumAge`. OpenHealthKit.
    public func speed(at date: Date, maximumAge: TimeInterval) -> Double? {
        let unit = HKUnit.meter().unitDivided(by: .second())
        return mostRecentValue(of: HKQuantityType(.cyclingSpeed), in: unit, at: date, maximumAge: maximumAge)
            ?? mostRecentValue(of: HKQuantityType(.runningSpeed), in: unit, at: date, maximumAge: maximumAge)
    }

    /// Whether these types are collected at all: power, cadence (a ride's, or a run's from its steps), speed.
    /// OpenHealthKit.
    public var collectsPower: Bool { collectedTypes.contains(HKQuantityType(.cyclingPower)) }
    public var collectsCadence: Bool { collectedTypes.contains(HKQuantityType(.cyclingCadence)) || cadenceIsRunning }
    public var collectsSpeed: Bool {
        collectedTypes.contains(HKQuantityType(.cyclingSpeed)) || collectedTypes.contains(HKQuantityType(.runningSpeed))
    }

    /// The upper boundaries of the heart-rate zones in count/min (empty without zones). OpenHealthKit.
    public var heartRateZoneBoundaries: [Double] {
        (heartRateZones ?? []).dropLast().compactMap { $0.zone.maximum?.doubleValue(for: Self.bpm) }
    }

    /// Time in each heart-rate zone so far; without zones, one zone for each of `boundaries` and one more, at 0.
    /// OpenHealthKit.
    public func heartRateZoneTimes(orZerosFor boundaries: [Double]) -> [TimeInterval] {
        if let zones = heartRateZones, !zones.isEmpty { return zones.map(\.duration) }
        return Array(repeating: 0, count: boundaries.count + 1)
    }

    /// The heart-rate zone (0-based) of the most recent heart rate no older than `maximumAge` at `date`, by the
    /// library's rule for zone boundaries (``HKWorkoutZoneConfiguration/zone(containing:)``). OpenHealthKit.
    public func heartRateZone(at date: Date, maximumAge: TimeInterval) -> Int? {
        let boundaries = heartRateZoneBoundaries
        guard heartRateZones?.isEmpty == false,
            let heartRate = mostRecentValue(
                of: HKQuantityType(.heartRate), in: Self.bpm, at: date, maximumAge: maximumAge),
            let configuration = try? HKWorkoutZoneConfiguration(
                quantityType: HKQuantityType(.heartRate),
                zoneBoundaries: boundaries.map { HKQuantity(unit: Self.bpm, doubleValue: $0) })
        else { return nil }
        return configuration.zone(containing: HKQuantity(unit: Self.bpm, doubleValue: heartRate))?.index
    }
}
