import Foundation
import HealthKitModel

/// A trailing simple moving average over a time window: the mean of the values that arrived in `(now − window, now]`.
///
/// For display (the 3 s power a bike computer shows next to the instantaneous value); the samples stay raw.
/// A value older than the window no longer counts, so a sensor that goes silent gives `nil` after `window`,
/// never a frozen average. Pure: time is an argument.
///
/// OpenHealthKit extension; HealthKit has no rolling average. The 3 s window is the one bike computers use
/// (the "Power smoothing" notes of the project's zones and metrics reference).
public struct TrailingAverage: Sendable, Equatable {
    /// The window's length in seconds.
    public let window: TimeInterval
    private var values: [(date: Date, value: Double)] = []

    public init(window: TimeInterval) {
        self.window = window
    }

    /// Takes a value that arrived at `date`. Values arriving out of order are ignored.
    public mutating func add(_ value: Double, at date: Date) {
        if let last = values.last, date < last.date { return }
        values.append((date, value))
        prune(before: date)
    }

    /// The mean of the values in `(now − window, now]`, or nil when there is none.
    public func average(at now: Date) -> Double? {
        var sum = 0.0
        var count = 0
        for entry in values where entry.date > now.addingTimeInterval(-window) && entry.date <= now {
            sum += entry.value
            count += 1
        }
        return count == 0 ? nil : sum / Double(count)
    }

    private mutating func prune(before now: Date) {
        let cutoff = now.addingTimeInterval(-window)
        if let keep = values.firstIndex(where: { $0.date > cutoff }), keep > 0 { values.removeFirst(keep) }
    }

    public static func == (lhs: TrailingAverage, rhs: TrailingAverage) -> Bool {
        lhs.window == rhs.window && lhs.values.map(\.date) == rhs.values.map(\.date)
            && lhs.values.map(\.value) == rhs.values.map(\.value)
    }
}

extension TrailingAverage {
    /// The 3-second power a bike computer shows: the mean of the cycling or running power readings of the last
    /// 3 s. A live builder keeps one, fed with every power sample it collects
    /// (``HKLiveWorkoutBuilder/threeSecondPower(at:)``), so no reading is missed however its deliveries to the
    /// delegate are coalesced.
    package static func threeSecondPower() -> TrailingAverage { TrailingAverage(window: 3) }

    /// The type codes of the power types.
    package static let powerCodes: [UInt16] = [
        HKQuantityType.interned(.cyclingPower).code,
        HKQuantityType.interned(.runningPower).code,
    ]
}
