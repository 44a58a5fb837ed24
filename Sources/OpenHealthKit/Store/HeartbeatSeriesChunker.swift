import Foundation

/// Cuts a workout's heartbeats (rebuilt from RR intervals, in order) into heartbeat series of at most
/// `HKHeartbeatSeriesBuilder.maximumCount` beats, each handed to `save` as soon as it is full, so memory does not
/// grow with the workout's length. The rule of ``HKWorkoutBuilder/finishWorkout()``'s heartbeats, above the store's
/// seam: a backend only saves what it is handed.
struct HeartbeatSeriesChunker {
    let device: HKDevice?
    let source: HKSourceRevision
    private var chunk: [HeartbeatCollector.Beat] = []

    init(device: HKDevice?, source: HKSourceRevision) {
        self.device = device
        self.source = source
    }

    /// Adds beats, saving each series that fills.
    mutating func take(
        _ beats: [HeartbeatCollector.Beat], _ save: (HKHeartbeatSeriesSample) throws -> Void
    ) throws {
        for beat in beats {
            chunk.append(beat)
            if chunk.count == HKHeartbeatSeriesBuilder.maximumCount { try flush(save) }
        }
    }

    /// Saves the beats taken since the last series, if any.
    mutating func flush(_ save: (HKHeartbeatSeriesSample) throws -> Void) throws {
        guard let first = chunk.first, let last = chunk.last else { return }
        let encoded = chunk.map {
            HeartbeatSeriesCodec.Beat(offset: $0.time - first.time, precededByGap: $0.precededByGap)
        }
        try save(
            HKHeartbeatSeriesSample(
                count: encoded.count, startDate: Date(storeValue: first.time),
                endDate: Date(storeValue: last.time), uuid: FastUUID.next(), metadata: nil,
                device: device, sourceRevision: source, beats: encoded))
        chunk.removeAll(keepingCapacity: true)
    }
}
