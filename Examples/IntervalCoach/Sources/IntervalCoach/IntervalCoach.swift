import Foundation

#if canImport(HealthKit)
import HealthKit
#else
import OpenHealthKit
#endif

/// A coach that speaks up when the heart-rate zone changes, as an interval app on a watch would: "Zone 4 — hold
/// it", "Zone 1 — recover". Written against HealthKit's workout API only; its tests run on Linux.
public final class IntervalCoach: NSObject, HKLiveWorkoutBuilderDelegate, @unchecked Sendable {
    /// One thing the coach said, and when.
    public struct Announcement: Equatable, Sendable {
        public var date: Date
        /// The zone's number as people say it (1–5).
        public var zone: Int
        public var text: String
    }

    private let lock = NSLock()
    private var said: [Announcement] = []
    private var lastZone: Int?

    public override init() {}

    /// What the coach has said so far.
    public var announcements: [Announcement] { lock.withLock { said } }

    public func workoutBuilder(
        _ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>
    ) {}
    public func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {}

    public func workoutBuilder(
        _ workoutBuilder: HKLiveWorkoutBuilder, didUpdateWorkoutZone zoneUpdate: HKLiveWorkoutZoneUpdate
    ) {
        guard zoneUpdate.zoneGroup?.configuration.quantityType == HKQuantityType(.heartRate),
            let index = zoneUpdate.currentZoneDuration?.zone.index
        else { return }
        let zone = index + 1
        let date = zoneUpdate.lastSampleProcessedDate ?? Date()
        lock.withLock {
            guard zone != lastZone else { return }
            let rising = zone > (lastZone ?? 0)
            lastZone = zone
            said.append(Announcement(date: date, zone: zone, text: Self.phrase(zone: zone, rising: rising)))
        }
    }

    static func phrase(zone: Int, rising: Bool) -> String {
        switch (zone, rising) {
        case (1, _): "Zone 1 — recover"
        case (5, _): "Zone 5 — that's the top, ease off"
        case (_, true): "Zone \(zone) — hold it"
        case (_, false): "Zone \(zone) — coming down"
        }
    }
}
