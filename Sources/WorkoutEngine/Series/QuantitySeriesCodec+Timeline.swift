import Foundation
import HealthKitModel

/// Version 4 of the series form: the times are indices into a *timeline* several series share
/// (`series_timelines.instants`), the values as in version 3.
///
/// One sensor's notifications carry several types: each Cycling Power Measurement gives power, cadence, speed,
/// distance and energy samples at its arrival time. Condensed separately, each series stored those arrival times
/// again, and millisecond arrival times jittered by a BLE connection's events cost about 6 bits each, every time.
/// Condensing now stores the instants once per workout, source and device (a timeline) and each series' times as
/// positions in it, which for a series that takes every notification run-length encode to a few bytes.
///
/// ```text
/// timeline: a version 3 series whose quantities are the instants (start = end = instant, value 0), sorted,
///           each distinct bit pattern once
/// u8      version = 4
/// varint  count n
/// column  start positions: the index of each start in the timeline, as deltas from the previous (the first from 0)
/// column  end offsets: the index of each end minus the index of its start
/// values  as in version 3 (u8 k; columns)
/// ```
///
/// Times come back bit for bit: a position names the very `Double` the timeline holds. A series that refers to a
/// missing or shorter timeline is a damaged store (an error, never a crash).
extension QuantitySeriesCodec {
    package static let version4: UInt8 = 4

    /// A timeline: its instants, and each instant's position by bit pattern.
    package struct Timeline {
        package let instants: [Double]
        package let positions: [UInt64: Int]

        /// The sorted, distinct instants of some series' starts and ends.
        package init(covering series: [[SeriesQuantity]]) {
            var patterns = Set<UInt64>()
            for quantities in series {
                for quantity in quantities {
                    patterns.insert(quantity.start.bitPattern)
                    patterns.insert(quantity.end.bitPattern)
                }
            }
            let sorted = patterns.map { Double(bitPattern: $0) }.sorted { ($0, $0.bitPattern) < ($1, $1.bitPattern) }
            self.init(instants: sorted)
        }

        package init(instants: [Double]) {
            self.instants = instants
            var positions: [UInt64: Int] = [:]
            positions.reserveCapacity(instants.count)
            for (index, instant) in instants.enumerated() { positions[instant.bitPattern] = index }
            self.positions = positions
        }

        /// The stored form of the timeline (`series_timelines.instants`).
        package func encoded() -> Data {
            QuantitySeriesCodec.encode(instants.map { SeriesQuantity(start: $0, end: $0, value: 0) })
        }

        /// Reads a stored timeline.
        package static func decode(_ data: Data) throws -> Timeline {
            Timeline(instants: try QuantitySeriesCodec.decode(data).map(\.start))
        }
    }

    /// The series in version 4 against `timeline`; nil when one of its times is not an instant of the timeline.
    package static func encode(_ quantities: [SeriesQuantity], on timeline: Timeline) -> Data? {
        var starts: [Int64] = []
        var ends: [Int64] = []
        starts.reserveCapacity(quantities.count)
        ends.reserveCapacity(quantities.count)
        for quantity in quantities {
            guard let start = timeline.positions[quantity.start.bitPattern],
                let end = timeline.positions[quantity.end.bitPattern]
            else { return nil }
            starts.append(Int64(start))
            ends.append(Int64(end))
        }
        var out = Data([version4])
        writeVarint(UInt64(quantities.count), to: &out)
        var previous: Int64 = 0
        writeColumn(
            starts.map { start in
                defer { previous = start }
                return start - previous
            }, packed: true, to: &out)
        writeColumn(zip(starts, ends).map { $1 - $0 }, packed: true, to: &out)
        out.append(shortestValues(quantities.map(\.value), packed: true))
        return out
    }

    /// Decodes any version; a version 4 series needs the timeline it refers to.
    package static func decode(_ data: Data, timeline: Timeline?) throws -> [SeriesQuantity] {
        guard data.first == version4 else { return try decode(data) }
        guard let timeline else { throw damaged("a series refers to a timeline that is not in the store") }
        var reader = Reader(bytes: [UInt8](data), offset: 1)
        let n64 = try reader.varint()
        guard n64 <= maximumCount else { throw damaged("impossible count \(n64)") }
        let n = Int(n64)
        let instants = timeline.instants
        func instant(_ position: Int64) throws -> Double {
            guard position >= 0, position < Int64(instants.count) else {
                throw damaged("position \(position) beyond a timeline of \(instants.count)")
            }
            return instants[Int(position)]
        }
        var position: Int64 = 0
        let startPositions = try reader.column(n).map {
            position &+= $0
            return position
        }
        let endOffsets = try reader.column(n)
        let values = try decodeValues(&reader, count: n)
        return try (0 ..< n).map { index in
            SeriesQuantity(
                start: try instant(startPositions[index]), end: try instant(startPositions[index] &+ endOffsets[index]),
                value: values[index])
        }
    }
}
