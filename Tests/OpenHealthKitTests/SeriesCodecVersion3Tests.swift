import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// Version 3 of the series form: version 2's layout with columns packed in bits (column mode 4). Sizes are worked
/// out by hand in the comments.
@Suite struct SeriesCodecVersion3Tests {
    /// 1,000 intervals of 480…520 ms (480 + i mod 41), as a sensor notifying every 0.5 s.
    let intervals = (0 ..< 1000).map { Int64(480 + $0 % 41) }

    @Test func aColumnOfJitteredIntervalsPacksInSixBits() throws {
        // The median is 500; each value − 500 is −20…20, zigzag 0…40. Width 6 (escape 63) holds all: 1,000 × 6 bits
        // = 750 bytes. Width 5 (escape 31) would escape the 10 residues of 41 with |v − 500| ≥ 16, 24 × 10 + 5 = 245
        // values of one varint byte each: 625 + 245 = 870 bytes. Nibbles around 500 (±7) would escape 26 residues of
        // 41: about 630 escapes on 500 bytes. So: mode byte, zigzag(500) = 1000 as a 2-byte varint, width, 750.
        var column = Data()
        QuantitySeriesCodec.writeColumn(intervals, packed: true, to: &column)
        #expect(column.count == 1 + 2 + 1 + 750)
        #expect(column.first == 4 && column[column.startIndex + 3] == 6)
        var reader = QuantitySeriesCodec.Reader(bytes: [UInt8](column))
        #expect(try reader.column(intervals.count) == intervals)
        #expect(reader.offset == column.count)
        // Without packing (version 2), the same column takes the nibbles around the median.
        var nibbles = Data()
        QuantitySeriesCodec.writeColumn(intervals, packed: false, to: &nibbles)
        #expect(nibbles.first == 3 && nibbles.count > 1100)
    }

    @Test func escapedValuesFollowThePackedBits() throws {
        // 99 values of 0 and one of 1,000,000 around offset 0: width 1 keeps the zeros (escape 1) and the large one
        // escapes to a 3-byte varint (zigzag 2,000,000 < 2^21): 100 bits = 13 bytes, + 3. Mode byte, zigzag(0) as
        // one byte, width byte: 19 bytes.
        var values = [Int64](repeating: 0, count: 100)
        values[50] = 1_000_000
        let column = QuantitySeriesCodec.packedColumn(values, offset: 0)
        #expect(column.count == 1 + 1 + 1 + 13 + 3)
        var reader = QuantitySeriesCodec.Reader(bytes: [UInt8](column))
        #expect(try reader.column(values.count) == values)
        // Negative values and the extremes of Int64 survive too.
        let extremes: [Int64] = [.min, .max, -1, 0, 1, 17, -300]
        var extremeReader = QuantitySeriesCodec.Reader(
            bytes: [UInt8](QuantitySeriesCodec.packedColumn(extremes, offset: 17)))
        #expect(try extremeReader.column(extremes.count) == extremes)
    }

    @Test func versionTwoBlobsStillDecodeAndVersionThreeIsSmaller() throws {
        var generator = SeededGenerator(seed: 0x5EED_0001)
        var time = 816_850_800.146
        let power = (0 ..< 2000).map { _ -> SeriesQuantity in
            time += Double(Int.random(in: 480 ... 520, using: &generator)) / 1000
            return SeriesQuantity(start: time, end: time, value: Double(Int.random(in: 140 ... 170, using: &generator)))
        }
        let version2 = QuantitySeriesCodec.encodeVersion2(power)
        let version3 = QuantitySeriesCodec.encode(power)
        #expect(version2.first == 2 && version3.first == 3)
        #expect(try QuantitySeriesCodec.decode(version2) == power)
        #expect(try QuantitySeriesCodec.decode(version3).map(\.start.bitPattern) == power.map(\.start.bitPattern))
        #expect(try QuantitySeriesCodec.decode(version3) == power)
        // Start deltas spread over 41 values and value deltas over 61: six or seven bits each instead of a nibble
        // plus an escape byte for most of them.
        #expect(version3.count < version2.count * 3 / 4, "\(version3.count) vs \(version2.count)")
    }

    @Test func damagedPackedColumnsAreErrorsNeverCrashes() throws {
        let column = [UInt8](QuantitySeriesCodec.packedColumn(intervals, offset: 500))
        for length in 0 ..< column.count where length % 11 == 0 {
            var reader = QuantitySeriesCodec.Reader(bytes: Array(column.prefix(length)))
            #expect(throws: HKError.self) { try reader.column(intervals.count) }
        }
        for width: UInt8 in [0, 33, 255] {
            var damaged = column
            damaged[3] = width
            var reader = QuantitySeriesCodec.Reader(bytes: damaged)
            #expect(throws: HKError.self) { try reader.column(intervals.count) }
        }
    }

    @Test func millisecondTimesTakeABaseOfZeroAndNoCorrections() throws {
        // Times of a clock rounded to the millisecond: Double(ms) / 1000, the nearest Double to each decimal.
        let milliseconds = intervals.reduce(into: [Int64(816_850_800_146)]) { $0.append($0.last! + $1) }
        let quantities = milliseconds.map {
            SeriesQuantity(start: Double($0) / 1000, end: Double($0) / 1000, value: 150)
        }
        let encoded = QuantitySeriesCodec.encode(quantities)
        #expect(try QuantitySeriesCodec.decode(encoded).map(\.start.bitPattern) == quantities.map(\.start.bitPattern))
        // Version byte, count 1,001 (a 2-byte varint), then the time exponent 3 and a base of 0.0 (8 zero bytes).
        let bytes = [UInt8](encoded)
        #expect(bytes[3] == 3 && bytes[4 ..< 12].allSatisfy { $0 == 0 })
        #expect(encoded.count < QuantitySeriesCodec.encodeVersion2(quantities).count)
    }

    @Test func valuesAroundALevelAreStoredAsStepsNotDeltas() throws {
        // Distance per reading: 4.21 m (two wheel revolutions) with every 8th reading 2.11 or 6.31. As steps of
        // 0.01 m around the median 421 one value in 8 is off it; as deltas two in 8 (there and back).
        let distances = (0 ..< 800).map { index -> Double in
            index % 8 != 7 ? 4.21 : (index % 16 == 7 ? 2.11 : 6.31)
        }
        let values = QuantitySeriesCodec.shortestValues(distances, packed: true)
        #expect(values.first == QuantitySeriesCodec.directSteps + 2, "steps of 10^-2, stored directly (16 + 2)")
        let quantities = distances.enumerated().map {
            SeriesQuantity(start: Double($0.offset), end: Double($0.offset + 1), value: $0.element)
        }
        #expect(try QuantitySeriesCodec.decode(QuantitySeriesCodec.encode(quantities)) == quantities)
        #expect(QuantitySeriesCodec.shortestValues(distances, packed: false).first == 2, "version 2: deltas")
    }
}
