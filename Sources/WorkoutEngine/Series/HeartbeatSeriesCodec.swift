import Foundation
import HealthKitModel

/// How a heartbeat series is stored (`heartbeat_series.beats`, and the archive of an `HKHeartbeatSeriesSample`).
///
/// Every beat is kept to the microsecond: its offset from the series start is `Double(µs) / 1e6`, the µs being the
/// running sum of each beat's *interval*, the microseconds since the previous beat (for the first, since the start).
///
/// **Version 1**: a little-endian u32 count, then per beat an unsigned LEB128 varint of
/// `interval << 1 | precededByGap`. A beat at 1 Hz costs 3 bytes.
///
/// **Version 2** (the same microseconds in about a byte a beat):
///
/// ```text
/// u32     0xFFFF_FFFF     (a version 1 count no blob can have: every beat takes a byte)
/// u8      version = 2
/// varint  count n
/// varint  ticks per second r (1024: a strap's RR intervals; 1,000,000: any microseconds)
/// column  tick deltas: ticks(i) − ticks(i − 1), ticks(i) = round(interval(i) · r / 10^6)
/// column  residuals: interval(i) − round(ticks(i) · 10^6 / r), in µs
/// column  gaps: 1 where a gap precedes the beat, else 0
/// ```
///
/// Columns are those of ``QuantitySeriesCodec`` (run-length, nibbles, bits packed around the median). A strap's
/// RR intervals are whole 1/1024 s (Bluetooth HRS 1.0 §3.1.1.5), so beat-to-beat intervals differ by a few dozen
/// ticks (six or seven bits) and the residuals, the microseconds lost when the beats' offsets were rounded, are
/// −1, 0 or 1. The encoder writes whichever version is shorter; both decode.
package enum HeartbeatSeriesCodec {
    package struct Beat: Sendable, Equatable {
        /// Seconds since the series' start.
        package var offset: Double
        package var precededByGap: Bool

        package init(offset: Double, precededByGap: Bool) {
            self.offset = offset
            self.precededByGap = precededByGap
        }
    }

    package static let versionMarker: UInt32 = 0xFFFF_FFFF
    package static let version2: UInt8 = 2

    /// The shorter of the two versions.
    package static func encode(_ beats: [Beat]) -> [UInt8] {
        let first = encodeVersion1(beats)
        let second = encodeVersion2(beats)
        return second.count < first.count ? second : first
    }

    /// Each beat's interval in µs (never negative) and its gap flag, as version 1 has always stored them.
    private static func intervals(_ beats: [Beat]) -> [(micros: Int64, gap: Bool)] {
        var previous: Int64 = 0
        return beats.map { beat in
            let micros = Int64((beat.offset * 1_000_000).rounded())
            defer { previous = max(previous, micros) }
            return (max(0, micros - previous), beat.precededByGap)
        }
    }

    package static func encodeVersion1(_ beats: [Beat]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4 + beats.count * 3)
        let count = UInt32(beats.count)
        bytes += [
            UInt8(truncatingIfNeeded: count), UInt8(truncatingIfNeeded: count >> 8),
            UInt8(truncatingIfNeeded: count >> 16),
            UInt8(truncatingIfNeeded: count >> 24),
        ]
        for interval in intervals(beats) {
            var value = UInt64(interval.micros) << 1 | (interval.gap ? 1 : 0)
            repeat {
                let byte = UInt8(value & 0x7F)
                value >>= 7
                bytes.append(value == 0 ? byte : byte | 0x80)
            } while value != 0
        }
        return bytes
    }

    /// `numerator / denominator` rounded half up, for non-negative numbers (wrapping, so damaged input never traps).
    private static func roundedQuotient(_ numerator: Int64, _ denominator: Int64) -> Int64 {
        guard denominator > 0 else { return 0 }
        return (numerator &* 2 &+ denominator) / (denominator &* 2)
    }

    package static func encodeVersion2(_ beats: [Beat]) -> [UInt8] {
        let intervals = intervals(beats)
        var best: Data?
        for rate: Int64 in [1024, 1_000_000] {
            let ticks = intervals.map { roundedQuotient($0.micros &* rate, 1_000_000) }
            var out = Data([0xFF, 0xFF, 0xFF, 0xFF, version2])
            QuantitySeriesCodec.writeVarint(UInt64(beats.count), to: &out)
            QuantitySeriesCodec.writeVarint(UInt64(rate), to: &out)
            var previous: Int64 = 0
            QuantitySeriesCodec.writeColumn(
                ticks.map { tick in
                    defer { previous = tick }
                    return tick &- previous
                }, packed: true, to: &out)
            QuantitySeriesCodec.writeColumn(
                zip(intervals, ticks).map { $0.micros &- roundedQuotient($1 &* 1_000_000, rate) },
                packed: true, to: &out)
            QuantitySeriesCodec.writeColumn(intervals.map { $0.gap ? 1 : 0 }, packed: true, to: &out)
            if best == nil || out.count < best!.count { best = out }
        }
        return [UInt8](best ?? Data())
    }

    package static func decode(_ bytes: [UInt8]) throws -> [Beat] {
        guard bytes.count >= 4 else {
            throw HKError(.errorDatabaseInaccessible, "A stored heartbeat series is truncated.")
        }
        let count = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
        if count == versionMarker { return try decodeVersion2(bytes) }
        guard count <= bytes.count else {
            throw HKError(.errorDatabaseInaccessible, "A stored heartbeat series is damaged.")
        }
        var beats: [Beat] = []
        beats.reserveCapacity(Int(count))
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
            time &+= Int64(bitPattern: value >> 1)
            beats.append(Beat(offset: Double(time) / 1_000_000, precededByGap: value & 1 == 1))
        }
        return beats
    }

    private static func decodeVersion2(_ bytes: [UInt8]) throws -> [Beat] {
        func damaged(_ reason: String) -> HKError {
            HKError(.errorDatabaseInaccessible, "A stored heartbeat series is damaged (\(reason)).")
        }
        var reader = QuantitySeriesCodec.Reader(bytes: bytes, offset: 4)
        /// The reader's own errors name a quantity series: this names the heartbeat series and where it broke.
        func read<T>(_ body: (inout QuantitySeriesCodec.Reader) throws -> T) throws -> T {
            do { return try body(&reader) } catch { throw damaged("truncated or malformed at byte \(reader.offset)") }
        }
        let version = try read { try $0.byte() }
        guard version == version2 else { throw damaged("unknown version \(version)") }
        let count = try read { try $0.varint() }
        // Every beat takes at least a bit of each of three columns.
        guard count <= UInt64(bytes.count) * 8 else { throw damaged("impossible count \(count)") }
        let rate = try read { try $0.varint() }
        guard rate > 0, rate <= 1_000_000 else { throw damaged("tick rate \(rate)") }
        let n = Int(count)
        let tickDeltas = try read { try $0.column(n) }
        let residuals = try read { try $0.column(n) }
        let gaps = try read { try $0.column(n) }
        var beats: [Beat] = []
        beats.reserveCapacity(n)
        var tick: Int64 = 0
        var time: Int64 = 0
        for index in 0 ..< n {
            tick &+= tickDeltas[index]
            time &+= roundedQuotient(tick &* 1_000_000, Int64(rate)) &+ residuals[index]
            beats.append(Beat(offset: Double(time) / 1_000_000, precededByGap: gaps[index] != 0))
        }
        return beats
    }
}
