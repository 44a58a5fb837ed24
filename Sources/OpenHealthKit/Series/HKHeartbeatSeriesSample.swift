import Foundation

/// A sample holding a series of data points (heartbeats, a route). HealthKit: HKSeriesSample.
open class HKSeriesSample: HKSample, @unchecked Sendable {
    /// How many data points the series holds.
    public let count: Int

    init(seriesType: HKSeriesType, count: Int, startDate: Date, endDate: Date, uuid: UUID, metadata: [String: Any]?,
         device: HKDevice?, sourceRevision: HKSourceRevision?) {
        self.count = count
        super.init(sampleType: seriesType, startDate: startDate, endDate: endDate, uuid: uuid, metadata: metadata,
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
        self.init(seriesType: type, count: coder.decodeInteger(forKey: "count"), startDate: fields.start, endDate: fields.end,
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

    init(count: Int, startDate: Date, endDate: Date, uuid: UUID, metadata: [String: Any]?, device: HKDevice?,
         sourceRevision: HKSourceRevision?, beats: [HeartbeatSeriesCodec.Beat]?) {
        self.beats = beats
        super.init(seriesType: .heartbeat(), count: count, startDate: startDate, endDate: endDate, uuid: uuid,
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
        self.init(count: coder.decodeInteger(forKey: "count"), startDate: fields.start, endDate: fields.end,
                  uuid: fields.object.uuid, metadata: fields.object.metadata, device: fields.object.device,
                  sourceRevision: fields.object.sourceRevision, beats: beats)
    }

    public override var description: String {
        "<HKHeartbeatSeriesSample \(count) beats \(uuid) \(startDate) – \(endDate)>"
    }
}

/// How a heartbeat series is stored: a little-endian u32 count, then per beat an unsigned LEB128 varint of
/// `(microseconds since the previous beat, or since the series start for the first) << 1 | precededByGap`.
/// A beat at 1 Hz costs 3 bytes.
enum HeartbeatSeriesCodec {
    struct Beat: Sendable, Equatable {
        /// Seconds since the series' start.
        var offset: Double
        var precededByGap: Bool
    }

    static func encode(_ beats: [Beat]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4 + beats.count * 3)
        let count = UInt32(beats.count)
        bytes += [UInt8(truncatingIfNeeded: count), UInt8(truncatingIfNeeded: count >> 8), UInt8(truncatingIfNeeded: count >> 16),
                  UInt8(truncatingIfNeeded: count >> 24)]
        var previous: Int64 = 0
        for beat in beats {
            let micros = Int64((beat.offset * 1_000_000).rounded())
            var value = UInt64(max(0, micros - previous)) << 1 | (beat.precededByGap ? 1 : 0)
            previous = max(previous, micros)
            repeat {
                let byte = UInt8(value & 0x7F)
                value >>= 7
                bytes.append(value == 0 ? byte : byte | 0x80)
            } while value != 0
        }
        return bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> [Beat] {
        guard bytes.count >= 4 else { throw HKError(.errorDatabaseInaccessible, "A stored heartbeat series is truncated.") }
        let count = Int(UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24)
        guard count <= bytes.count else { throw HKError(.errorDatabaseInaccessible, "A stored heartbeat series is damaged.") }
        var beats: [Beat] = []
        beats.reserveCapacity(count)
        var index = 4
        var time: Int64 = 0
        for _ in 0 ..< count {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard index < bytes.count, shift < 64 else {
                    throw HKError(.errorDatabaseInaccessible, "A stored heartbeat series is damaged at byte \(index).")
                }
                let byte = bytes[index]
                index += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { break }
                shift += 7
            }
            time += Int64(value >> 1)
            beats.append(Beat(offset: Double(time) / 1_000_000, precededByGap: value & 1 == 1))
        }
        return beats
    }
}
