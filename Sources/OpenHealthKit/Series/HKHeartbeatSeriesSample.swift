import Foundation
import HealthKitModel
import WorkoutEngine

/// A sample holding a series of data points (heartbeats, a route). HealthKit: HKSeriesSample.
open class HKSeriesSample: HKSample, @unchecked Sendable {
    /// How many data points the series holds.
    public let count: Int

    init(
        seriesType: HKSeriesType, count: Int, startDate: Date, endDate: Date, uuid: UUID, metadata: [String: Any]?,
        device: HKDevice?, sourceRevision: HKSourceRevision?
    ) {
        self.count = count
        super.init(
            sampleType: seriesType, startDate: startDate, endDate: endDate, uuid: uuid, metadata: metadata,
            device: device, sourceRevision: sourceRevision)
    }

    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(count, forKey: "count")
    }

    public required convenience init?(coder: NSCoder) {
        guard let fields = HKSample.decodeSampleFields(coder), let type = fields.type as? HKSeriesType else {
            SecureCoding.fail(coder, "an HKSeriesSample")
            return nil
        }
        self.init(
            seriesType: type, count: coder.decodeInteger(forKey: "count"), startDate: fields.start, endDate: fields.end,
            uuid: fields.object.uuid, metadata: fields.object.metadata, device: fields.object.device,
            sourceRevision: fields.object.sourceRevision)
    }
}

/// The times of successive heartbeats, each as seconds since the series' start and whether a gap in the
/// recording came before it — what a strap's RR intervals record. Read the beats with ``HKHeartbeatSeriesQuery``.
///
/// HealthKit: HKHeartbeatSeriesSample.
public final class HKHeartbeatSeriesSample: HKSeriesSample, @unchecked Sendable {
    /// The beats, when the sample was made in this process (builders); nil for samples read from the store.
    let beats: [HeartbeatSeriesCodec.Beat]?

    init(
        count: Int, startDate: Date, endDate: Date, uuid: UUID, metadata: [String: Any]?, device: HKDevice?,
        sourceRevision: HKSourceRevision?, beats: [HeartbeatSeriesCodec.Beat]?
    ) {
        self.beats = beats
        super.init(
            seriesType: .heartbeat(), count: count, startDate: startDate, endDate: endDate, uuid: uuid,
            metadata: metadata, device: device, sourceRevision: sourceRevision)
    }

    /// Archives the sample with its beats when it holds them (one made in this process).
    public override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        if let beats { coder.encode(Data(HeartbeatSeriesCodec.encode(beats)), forKey: "beats") }
    }

    public required convenience init?(coder: NSCoder) {
        guard let fields = HKSample.decodeSampleFields(coder), fields.type == HKSeriesType.heartbeat() else {
            SecureCoding.fail(coder, "an HKHeartbeatSeriesSample")
            return nil
        }
        var beats: [HeartbeatSeriesCodec.Beat]? = nil
        if let data = SecureCoding.decodeOptional(NSData.self, coder, "beats") {
            guard let decoded = try? HeartbeatSeriesCodec.decode(Array(data as Data)) else {
                SecureCoding.fail(coder, "an HKHeartbeatSeriesSample")
                return nil
            }
            beats = decoded
        }
        self.init(
            count: coder.decodeInteger(forKey: "count"), startDate: fields.start, endDate: fields.end,
            uuid: fields.object.uuid, metadata: fields.object.metadata, device: fields.object.device,
            sourceRevision: fields.object.sourceRevision, beats: beats)
    }

    public override var description: String {
        "<HKHeartbeatSeriesSample \(count) beats \(uuid) \(startDate) – \(endDate)>"
    }
}
