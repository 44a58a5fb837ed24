import Foundation
import HealthKitModel

/// The compact, lossless binary form of a quantity series, stored in `quantity_series.points`.
///
/// Four versions, told apart by the first byte, all still read: 1 (below), 2 (integers plus exact corrections,
/// `QuantitySeriesCodec+Version2.swift`), 3 (version 2's layout with bit-packed columns, a time base of 0 and
/// values as steps; `+Packed.swift`) and 4 (times as positions in a timeline several series share,
/// `+Timeline.swift`). The store writes version 4 for the series of one condensing that share a source and device,
/// version 3 otherwise.
///
/// Layout (version 1), all integers little-endian; *varint* is LEB128, *zigzag* maps signed to unsigned
/// (0, -1, 1, -2 → 0, 1, 2, 3):
///
/// ```text
/// u8      version = 1
/// u8      time exponent e  (255: times are raw doubles)   — a tick is 10^-e s
/// u8      value exponent k (255: values are raw doubles)  — a value step is 10^-k storage units
/// varint  count n
/// f64     base: the first start (only when times are ticks)
/// column  starts: tick deltas from the previous start (the first from base)
/// column  ends:   end tick − reference tick, the reference being the next start (the own start for the last)
/// column  values: zigzag deltas of value steps from the previous value (the first from 0)
/// ```
///
/// Each *column* begins with a mode byte: 0 run-length (pairs of zigzag value and run length, as varints),
/// 1 nibbles (zigzag values packed two per byte, low nibble first; 15 escapes to a varint that follows all
/// nibbles), 2 raw (n little-endian f64), 3 nibbles around an offset (a zigzag varint, then mode 1's bytes for each
/// value minus the offset). The encoder writes whichever of run-length, nibbles and offset nibbles is shortest.
///
/// **Lossless quantisation.** Times and values are stored as integers only when that is exact: the encoder picks
/// the smallest exponent (0…6) for which every `base + Double(ticks) / 10^e` and every `Double(steps) / 10^k`
/// reproduces the original `Double` bit for bit, and otherwise stores raw doubles. Heart rate in whole bpm at whole
/// seconds costs about half a byte per quantity (regular starts and ends run-length encode to nothing; value
/// deltas of −7…7 take a nibble); so statistics over a decoded series equal those over its quantities exactly.
package enum QuantitySeriesCodec {
    package static let version: UInt8 = 1
    package static let raw: UInt8 = 255
    /// The most quantities a stored series may claim (115 days at 1 Hz): a damaged count never allocates more.
    package static let maximumCount: UInt64 = 10_000_000

    /// Version 1 (still read; no longer written).
    package static func encodeVersion1(_ quantities: [SeriesQuantity]) -> Data {
        var out = Data([version])
        let n = quantities.count
        let timeExponent =
            n == 0 ? nil : exponent(for: quantities.flatMap { [$0.start, $0.end] }, base: quantities[0].start)
        let valueExponent = exponent(for: quantities.map(\.value), base: 0)
        out.append(timeExponent ?? raw)
        out.append(valueExponent ?? raw)
        writeVarint(UInt64(n), to: &out)
        if let e = timeExponent {
            let base = quantities[0].start
            appendDouble(base, to: &out)
            let scale = pow(10, Double(e))
            let starts = quantities.map { Int64((($0.start - base) * scale).rounded()) }
            let ends = quantities.map { Int64((($0.end - base) * scale).rounded()) }
            writeColumn((0 ..< n).map { (i: Int) -> Int64 in i == 0 ? starts[0] : starts[i] - starts[i - 1] }, to: &out)
            writeColumn(
                (0 ..< n).map { (i: Int) -> Int64 in ends[i] - (i + 1 < n ? starts[i + 1] : starts[i]) }, to: &out)
        } else {
            writeRaw(quantities.map(\.start), to: &out)
            writeRaw(quantities.map(\.end), to: &out)
        }
        if let k = valueExponent {
            let scale = pow(10, Double(k))
            let steps = quantities.map { Int64(($0.value * scale).rounded()) }
            writeColumn((0 ..< n).map { (i: Int) -> Int64 in i == 0 ? steps[0] : steps[i] &- steps[i - 1] }, to: &out)
        } else {
            writeRaw(quantities.map(\.value), to: &out)
        }
        return out
    }

    package static func decode(_ data: Data) throws -> [SeriesQuantity] {
        var reader = Reader(bytes: [UInt8](data))
        switch try reader.byte() {
        case version: return try decodeVersion1(&reader, byteCount: data.count)
        case version2, version3: return try decodeVersion2(&reader, byteCount: data.count)
        case let other: throw damaged("unknown series version \(other)")
        }
    }

    private static func decodeVersion1(_ reader: inout Reader, byteCount: Int) throws -> [SeriesQuantity] {
        let timeExponent = try reader.byte()
        let valueExponent = try reader.byte()
        let n64 = try reader.varint()
        guard n64 <= maximumCount else { throw damaged("impossible count \(n64)") }
        let n = Int(n64)
        var starts: [Double]
        var ends: [Double]
        if timeExponent != raw {
            guard timeExponent <= 9 else { throw damaged("time exponent \(timeExponent)") }
            let base = try reader.double()
            let scale = pow(10, Double(timeExponent))
            let startDeltas = try reader.column(n)
            let endOffsets = try reader.column(n)
            var ticks: [Int64] = []
            ticks.reserveCapacity(n)
            var tick: Int64 = 0
            for delta in startDeltas {
                tick &+= delta
                ticks.append(tick)
            }
            starts = ticks.map { base + Double($0) / scale }
            ends = (0 ..< n).map { base + Double(endOffsets[$0] &+ ($0 + 1 < n ? ticks[$0 + 1] : ticks[$0])) / scale }
        } else {
            starts = try reader.rawColumn(n)
            ends = try reader.rawColumn(n)
        }
        var values: [Double]
        if valueExponent != raw {
            guard valueExponent <= 9 else { throw damaged("value exponent \(valueExponent)") }
            let scale = pow(10, Double(valueExponent))
            var step: Int64 = 0
            values = try reader.column(n).map {
                step &+= $0
                return Double(step) / scale
            }
        } else {
            values = try reader.rawColumn(n)
        }
        return (0 ..< n).map { SeriesQuantity(start: starts[$0], end: ends[$0], value: values[$0]) }
    }

    /// The smallest exponent e in 0…6 for which every value is exactly `base + Double(integer) / 10^e`.
    private static func exponent(for values: [Double], base: Double) -> UInt8? {
        exponents: for e in 0 ... 6 {
            let scale = pow(10, Double(e))
            for value in values {
                let scaled = ((value - base) * scale).rounded()
                guard abs(scaled) < 9e15, base + scaled / scale == value else { continue exponents }
            }
            return UInt8(e)
        }
        return nil
    }

    package static func damaged(_ reason: String) -> HKError {
        HKError(.errorDatabaseInaccessible, "The health store holds a damaged quantity series (\(reason)).")
    }

    // MARK: Writing

    package static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

    package static func writeVarint(_ value: UInt64, to out: inout Data) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    package static func appendDouble(_ value: Double, to out: inout Data) {
        appendUInt64(value.bitPattern, to: &out)
    }

    /// Eight bytes, little-endian.
    package static func appendUInt64(_ value: UInt64, to out: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    package static func writeRaw(_ values: [Double], to out: inout Data) {
        out.append(2)
        for value in values { appendDouble(value, to: &out) }
    }

    /// Writes the shortest form of a column: run-length, nibbles or nibbles around an offset, and from version 3
    /// also bits packed around an offset (`packed`, see `QuantitySeriesCodec+Packed.swift`).
    package static func writeColumn(_ values: [Int64], packed: Bool = false, to out: inout Data) {
        let zigzagged = values.map(zigzag)
        var runs = Data([0])
        var index = 0
        while index < zigzagged.count {
            var end = index + 1
            while end < zigzagged.count && zigzagged[end] == zigzagged[index] { end += 1 }
            writeVarint(zigzagged[index], to: &runs)
            writeVarint(UInt64(end - index), to: &runs)
            index = end
        }
        var nibbles = Data()
        writeNibbles(values, to: &nibbles)
        var best = runs.count <= nibbles.count ? runs : nibbles
        // Mode 3: nibbles around the median (values clustered away from 0, such as 0.5 s between readings in ms).
        if !values.isEmpty {
            let median = values.sorted()[values.count / 2]
            if median != 0 {
                var offset = Data([3])
                writeVarint(zigzag(median), to: &offset)
                var rest = Data()
                writeNibbles(values.map { $0 &- median }, to: &rest)
                offset.append(rest.dropFirst())
                if offset.count < best.count { best = offset }
            }
            if packed {
                let bits = packedColumn(values, offset: median)
                if bits.count < best.count { best = bits }
            }
        }
        out.append(best)
    }

    /// Mode 1: a mode byte, then zigzag values packed two per byte, 15 escaping to a varint after all nibbles.
    private static func writeNibbles(_ values: [Int64], to out: inout Data) {
        out.append(1)
        var overflow = Data()
        var pair: UInt8 = 0
        for (position, value) in values.map(zigzag).enumerated() {
            let nibble: UInt8 = value < 15 ? UInt8(value) : 15
            if value >= 15 { writeVarint(value, to: &overflow) }
            if position % 2 == 0 { pair = nibble } else { out.append(pair | nibble << 4) }
        }
        if values.count % 2 == 1 { out.append(pair) }
        out.append(overflow)
    }

    // MARK: Reading

    package struct Reader {
        package let bytes: [UInt8]
        package var offset = 0

        package mutating func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw damaged("truncated at byte \(offset)") }
            defer { offset += 1 }
            return bytes[offset]
        }

        package mutating func varint() throws -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = try byte()
                guard shift < 64 else { throw damaged("overlong varint at byte \(offset)") }
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return result }
                shift += 7
            }
        }

        package mutating func double() throws -> Double {
            Double(bitPattern: try uint64())
        }

        /// Eight bytes, little-endian.
        package mutating func uint64() throws -> UInt64 {
            var value: UInt64 = 0
            for index in 0 ..< 8 { value |= UInt64(try byte()) << (8 * UInt64(index)) }
            return value
        }

        package static func unzigzagValue(_ value: UInt64) -> Int64 {
            Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
        }
        private static func unzigzag(_ value: UInt64) -> Int64 { unzigzagValue(value) }

        package mutating func column(_ n: Int) throws -> [Int64] {
            var result: [Int64] = []
            result.reserveCapacity(n)
            let mode = try byte()
            switch mode {
            case 0:
                while result.count < n {
                    let value = Self.unzigzag(try varint())
                    let run = try varint()
                    guard run > 0, run <= UInt64(n - result.count) else { throw damaged("bad run at byte \(offset)") }
                    result.append(contentsOf: repeatElement(value, count: Int(run)))
                }
            case 1, 3:
                let offset = mode == 3 ? Self.unzigzag(try varint()) : 0
                var nibbles: [UInt8] = []
                nibbles.reserveCapacity(n)
                for _ in 0 ..< (n + 1) / 2 {
                    let pair = try byte()
                    nibbles.append(pair & 0x0F)
                    nibbles.append(pair >> 4)
                }
                for index in 0 ..< n {
                    result.append(Self.unzigzag(nibbles[index] == 15 ? try varint() : UInt64(nibbles[index])) &+ offset)
                }
            case QuantitySeriesCodec.packedMode:
                return try packedColumn(n)
            default:
                throw damaged("unknown column mode \(mode)")
            }
            return result
        }

        package mutating func rawColumn(_ n: Int) throws -> [Double] {
            guard try byte() == 2 else { throw damaged("expected raw column at byte \(offset - 1)") }
            return try (0 ..< n).map { _ in try double() }
        }

        package init(bytes: [UInt8], offset: Int = 0) {
            self.bytes = bytes
            self.offset = offset
        }
    }
}
