import Foundation
import HealthKitModel
import WorkoutEngine

extension HKLiveWorkoutBuilderDelegate {
    /// Does nothing unless the delegate implements it.
    ///
    /// HealthKit: HKLiveWorkoutBuilderDelegate.workoutBuilder(_:didUpdateWorkoutZone:) (optional there).
    public func workoutBuilder(
        _ workoutBuilder: HKLiveWorkoutBuilder, didUpdateWorkoutZone zoneUpdate: HKLiveWorkoutZoneUpdate
    ) {}
}

extension HKLiveWorkoutBuilder {
    /// The article's spelling of ``HKLiveWorkoutZoneUpdate``.
    public typealias ZoneUpdate = HKLiveWorkoutZoneUpdate

    /// Zone changes as an asynchronous sequence, in the order the delegate hears them. Each use makes a new
    /// subscriber that receives the changes from then on; the sequence ends when the workout is finished or
    /// discarded. OpenHealthKit.
    ///
    /// ```swift
    /// for await update in builder.zoneUpdates {
    ///     print(update.currentZoneDuration?.zone.index ?? "no zone")
    /// }
    /// ```
    public var zoneUpdates: AsyncStream<HKLiveWorkoutZoneUpdate> {
        let (stream, continuation) = AsyncStream<HKLiveWorkoutZoneUpdate>.makeStream(bufferingPolicy: .unbounded)
        let id = UUID()
        if !withCore({ $0.addZoneListener(id, continuation) }) { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            withCore { $0.removeZoneListener(id) }
        }
        return stream
    }

    /// Ends the `zoneUpdates` streams, after every update queued before.
    func finishZoneUpdates() {
        queueDelegateCall { builder, _ in
            for listener in builder.withCore({ $0.takeZoneListeners() }) { listener.finish() }
        }
    }
}
