import Foundation
import HealthKitModel

/// Version 2 of the series form: integers plus exact corrections, so readings whose times are not exact decimals
/// (arrival times such as 816850943.129, whose nearest `Double` is not `base + 142.983`) still pack into a few bytes.
///
/// ```text
/// u8      version = 2
/// varint  count n
/// times:  u8 e (0…9: ticks of 10^-e s; 255: raw doubles)
///         e ≤ 9: f64 base; column start deltas (ticks); u8 end reference (0: the next start, as in version 1;
///                1: the own start); column end offsets; column start corrections; column end corrections
///                minus the correction of the end's reference start
///         255:   raw column of starts; raw column of ends
/// values: u8 k (0…9: steps of 10^-k units; 254: raw float32; 255: raw doubles)
///         k ≤ 9: column step deltas; column corrections
///         254:   n little-endian float32 (every value is exactly a float32)
///         255:   raw column
/// ```
///
/// A *correction* makes the integer form exact: the stored time is `base + Double(ticks) / 10^e` (a value
/// `Double(steps) / 10^k`), and the correction is the difference between the original's and that result's IEEE 754
/// bit patterns as signed integers; adding it back gives the original bit for bit. Close numbers differ by a few
/// units in the last place, so corrections are mostly 0 or ±1 and take a nibble or nothing. The encoder tries every
/// exponent, the raw forms and both end references, and keeps the shortest: decoding is always exact.
///
/// **Version 3** has version 2's layout, and three more forms: columns may be packed in bits (column mode 4, see
/// `QuantitySeriesCodec+Packed.swift`); a time base of 0 (times as `Double(ticks) / 10^e`); and a value exponent
/// `16 + k` whose column holds the steps themselves instead of their deltas. Version 2 blobs still decode.
extension QuantitySeriesCodec {
    package static let version2: UInt8 = 2
    package static let version3: UInt8 = 3
    package static let rawFloat32: UInt8 = 254
    /// Added to a value exponent (version 3): the steps are stored as they are, not as deltas.
    package static let directSteps: UInt8 = 16

    /// The compact form of a series (version 3).
    package static func encode(_ quantities: [SeriesQuantity]) -> Data {
        encode(quantities, version: version3)
    }

    /// Version 2 (still read; no longer written).
    package static func encodeVersion2(_ quantities: [SeriesQuantity]) -> Data {
        encode(quantities, version: version2)
    }

    private static func encode(_ quantities: [SeriesQuantity], version: UInt8) -> Data {
        var out = Data([version])
        let packed = version >= version3
        writeVarint(UInt64(quantities.count), to: &out)
        out.append(shortestTimes(quantities, packed: packed))
        out.append(shortestValues(quantities.map(\.value), packed: packed))
        return out
    }

    private static func bits(_ value: Double) -> Int64 { Int64(bitPattern: value.bitPattern) }

    /// Each integer minus the previous one (the first as it is).
    private static func deltas(_ integers: [Int64]) -> [Int64] {
        var previous: Int64 = 0
        return integers.map { integer in
            defer { previous = integer }
            return integer &- previous
        }
    }

    /// The corrections that turn each integer form back into its original (see the type's discussion).
    private static func corrections(_ originals: [Double], _ integers: [Int64], base: Double, scale: Double) -> [Int64]
    {
        zip(originals, integers).map { original, integer in
            let approximation: Double = base + Double(integer) / scale
            return bits(original) &- bits(approximation)
        }
    }

    /// Integers of `(value − base) · 10^e`, or nil when one does not fit.
    private static func ticks(_ values: [Double], base: Double, scale: Double) -> [Int64]? {
        var result: [Int64] = []
        result.reserveCapacity(values.count)
        for value in values {
            let scaled = ((value - base) * scale).rounded()
            guard scaled.isFinite, abs(scaled) < 9e15 else { return nil }
            result.append(Int64(scaled))
        }
        return result
    }

    private static func shortestTimes(_ quantities: [SeriesQuantity], packed: Bool) -> Data {
        let n = quantities.count
        let starts = quantities.map(\.start)
        let ends = quantities.map(\.end)
        var best = Data([raw])
        writeRaw(starts, to: &best)
        writeRaw(ends, to: &best)
        guard let first = starts.first, first.isFinite else { return best }
        // From version 3 a base of 0 is tried too: times are then `Double(ticks) / 10^e`, which is the nearest
        // `Double` to a whole number of milliseconds exactly as a clock's time rounded to the millisecond is, so
        // their corrections are 0 (with the first start as base, two roundings leave corrections of ±1 ulp).
        for (base, e) in (packed ? [first, 0] : [first]).flatMap({ base in (0 ... 9).map { (base, $0) } }) {
            let scale = pow(10, Double(e))
            guard let startTicks = ticks(starts, base: base, scale: scale),
                let endTicks = ticks(ends, base: base, scale: scale)
            else { continue }
            var out = Data([UInt8(e)])
            appendDouble(base, to: &out)
            writeColumn(deltas(startTicks), packed: packed, to: &out)
            let startCorrections = corrections(starts, startTicks, base: base, scale: scale)
            let endCorrections = corrections(ends, endTicks, base: base, scale: scale)
            var toNext = Data([0])
            writeColumn(
                (0 ..< n).map { endTicks[$0] &- ($0 + 1 < n ? startTicks[$0 + 1] : startTicks[$0]) }, packed: packed,
                to: &toNext)
            var toOwn = Data([1])
            writeColumn((0 ..< n).map { endTicks[$0] &- startTicks[$0] }, packed: packed, to: &toOwn)
            let ownReference = toOwn.count < toNext.count
            out.append(ownReference ? toOwn : toNext)
            writeColumn(startCorrections, packed: packed, to: &out)
            // An end on its reference's tick has that start's correction too: stored as a difference, it is 0.
            writeColumn(
                (0 ..< n).map {
                    endCorrections[$0] &- startCorrections[ownReference || $0 + 1 == n ? $0 : $0 + 1]
                }, packed: packed, to: &out)
            if out.count < best.count { best = out }
        }
        return best
    }

    package static func shortestValues(_ values: [Double], packed: Bool) -> Data {
        var best = Data([raw])
        writeRaw(values, to: &best)
        if values.allSatisfy({ Double(Float($0)).bitPattern == $0.bitPattern }) {
            var out = Data([rawFloat32])
            for value in values {
                withUnsafeBytes(of: Float(value).bitPattern.littleEndian) { out.append(contentsOf: $0) }
            }
            if out.count < best.count { best = out }
        }
        for k in 0 ... 9 {
            let scale = pow(10, Double(k))
            guard let steps = ticks(values, base: 0, scale: scale) else { continue }
            var out = Data([UInt8(k)])
            writeColumn(deltas(steps), packed: packed, to: &out)
            writeColumn(corrections(values, steps, base: 0, scale: scale), packed: packed, to: &out)
            if out.count < best.count { best = out }
            // From version 3, steps may also be stored as they are (k + 16): values that alternate around a level,
            // such as distance per reading (2 or 3 wheel revolutions), differ from their median less than from
            // each other.
            if packed {
                var direct = Data([UInt8(k) + directSteps])
                writeColumn(steps, packed: packed, to: &direct)
                writeColumn(corrections(values, steps, base: 0, scale: scale), packed: packed, to: &direct)
                if direct.count < best.count { best = direct }
            }
        }
        return best
    }

    /// Reads version 2 after its version byte.
    package static func decodeVersion2(_ reader: inout Reader, byteCount: Int) throws -> [SeriesQuantity] {
        let n64 = try reader.varint()
        guard n64 <= maximumCount else { throw damaged("impossible count \(n64)") }
        let n = Int(n64)
        func corrected(_ value: Double, _ correction: Int64) -> Double {
            Double(bitPattern: UInt64(bitPattern: bits(value) &+ correction))
        }
        let starts: [Double]
        let ends: [Double]
        let e = try reader.byte()
        if e == raw {
            starts = try reader.rawColumn(n)
            ends = try reader.rawColumn(n)
        } else {
            guard e <= 9 else { throw damaged("time exponent \(e)") }
            let scale = pow(10, Double(e))
            let base = try reader.double()
            var tick: Int64 = 0
            let startTicks = try reader.column(n).map {
                tick &+= $0
                return tick
            }
            let reference = try reader.byte()
            guard reference <= 1 else { throw damaged("end reference \(reference)") }
            let endOffsets = try reader.column(n)
            let referenceIndex = { (index: Int) in reference == 1 || index + 1 == n ? index : index + 1 }
            let endTicks = (0 ..< n).map { endOffsets[$0] &+ startTicks[referenceIndex($0)] }
            let startCorrections = try reader.column(n)
            let endDifferences = try reader.column(n)
            let endCorrections = (0 ..< n).map { endDifferences[$0] &+ startCorrections[referenceIndex($0)] }
            starts = (0 ..< n).map { index in
                let approximation: Double = base + Double(startTicks[index]) / scale
                return corrected(approximation, startCorrections[index])
            }
            ends = (0 ..< n).map { index in
                let approximation: Double = base + Double(endTicks[index]) / scale
                return corrected(approximation, endCorrections[index])
            }
        }
        let values = try decodeValues(&reader, count: n)
        return (0 ..< n).map { SeriesQuantity(start: starts[$0], end: ends[$0], value: values[$0]) }
    }

    /// Reads the values section (version 2 and later): the value exponent and its columns.
    package static func decodeValues(_ reader: inout Reader, count n: Int) throws -> [Double] {
        func corrected(_ value: Double, _ correction: Int64) -> Double {
            Double(bitPattern: UInt64(bitPattern: bits(value) &+ correction))
        }
        let values: [Double]
        let k = try reader.byte()
        switch k {
        case raw:
            values = try reader.rawColumn(n)
        case rawFloat32:
            values = try (0 ..< n).map { _ in
                var pattern: UInt32 = 0
                for index in 0 ..< 4 { pattern |= UInt32(try reader.byte()) << (8 * UInt32(index)) }
                return Double(Float(bitPattern: pattern))
            }
        case 0 ... 9, directSteps ... directSteps + 9:
            let scale = pow(10, Double(k % directSteps))
            var step: Int64 = 0
            let steps =
                k >= directSteps
                ? try reader.column(n)
                : try reader.column(n).map {
                    step &+= $0
                    return step
                }
            let corrections = try reader.column(n)
            values = (0 ..< n).map { index in
                let approximation: Double = 0 + Double(steps[index]) / scale
                return corrected(approximation, corrections[index])
            }
        default:
            throw damaged("value exponent \(k)")
        }
        return values
    }
}
