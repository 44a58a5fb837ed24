import Foundation
import HealthKitModel
import WorkoutEngine

/// The UUIDs of a condensed range's folded samples, as a deletion record keeps them (`deleted_ranges.uuids`, with
/// `format`): whichever of two forms is shorter.
///
/// ```text
/// format 0: the UUIDs' 16 bytes each, in order
/// format 1: varint g, then g groups of consecutive UUIDs that share their first 8 bytes:
///           u64 high (little-endian), u64 first low (little-endian), varint n,
///           column of the n − 1 differences between consecutive lows (QuantitySeriesCodec's columns)
/// ```
///
/// Samples a live recording collects come from ``SampleUUIDStream``s, so one sensor's samples share their high half
/// and count up in their low half: a range of them is a group or a few, and its differences run-length or
/// bit-pack to almost nothing. Random UUIDs (an app's samples) stay in format 0.
enum DeletedUUIDsCodec {
    static let raw = 0
    static let grouped = 1

    static func encode(_ uuids: [UUID]) -> (format: Int, blob: Data) {
        var raw = Data(capacity: uuids.count * 16)
        for uuid in uuids { withUnsafeBytes(of: uuid.uuid) { raw.append(contentsOf: $0) } }
        var groups: [(high: UInt64, lows: [UInt64])] = []
        for uuid in uuids {
            let (high, low) = SampleUUIDStream.halves(uuid)
            if groups.last?.high == high {
                groups[groups.count - 1].lows.append(low)
            } else {
                groups.append((high, [low]))
            }
        }
        var grouped = Data()
        QuantitySeriesCodec.writeVarint(UInt64(groups.count), to: &grouped)
        for group in groups {
            QuantitySeriesCodec.appendUInt64(group.high, to: &grouped)
            QuantitySeriesCodec.appendUInt64(group.lows[0], to: &grouped)
            QuantitySeriesCodec.writeVarint(UInt64(group.lows.count), to: &grouped)
            let differences = zip(group.lows.dropFirst(), group.lows).map { Int64(bitPattern: $0 &- $1) }
            QuantitySeriesCodec.writeColumn(differences, packed: true, to: &grouped)
            if grouped.count >= raw.count { return (Self.raw, raw) }
        }
        return grouped.count < raw.count ? (Self.grouped, grouped) : (Self.raw, raw)
    }

    /// The `count` UUIDs of a record; a record that does not hold exactly that many is damaged.
    static func decode(_ blob: Data, format: Int, count: Int) throws -> [UUID] {
        var uuids: [UUID] = []
        switch format {
        case raw:
            guard blob.count == count * 16 else { throw damaged("\(blob.count) bytes for \(count) UUIDs") }
            uuids.reserveCapacity(count)
            for offset in stride(from: blob.startIndex, to: blob.endIndex, by: 16) {
                uuids.append(StoreDatabase.uuid(blob[offset ..< offset + 16]))
            }
        case grouped:
            do {
                uuids = try decodeGroups(blob, count: count)
            } catch let error as Damage {
                throw damaged(error.reason)
            } catch {
                // The column reader's own error (a truncated or malformed column).
                throw damaged(error.localizedDescription)
            }
        default:
            throw damaged("unknown format \(format)")
        }
        return uuids
    }

    private static func decodeGroups(_ blob: Data, count: Int) throws -> [UUID] {
        var uuids: [UUID] = []
        var reader = QuantitySeriesCodec.Reader(bytes: [UInt8](blob))
        let groups = try reader.varint()
        guard groups <= UInt64(count) else { throw Damage(reason: "\(groups) groups for \(count) UUIDs") }
        uuids.reserveCapacity(count)
        for _ in 0 ..< groups {
            let high = try reader.uint64()
            var low = try reader.uint64()
            let n = try reader.varint()
            guard n > 0, n <= UInt64(count - uuids.count) else { throw Damage(reason: "a group of \(n) UUIDs") }
            uuids.append(SampleUUIDStream.uuid(high: high, low: low))
            for difference in try reader.column(Int(n) - 1) {
                low = low &+ UInt64(bitPattern: difference)
                uuids.append(SampleUUIDStream.uuid(high: high, low: low))
            }
        }
        guard uuids.count == count, reader.offset == reader.bytes.count else {
            throw Damage(reason: "\(uuids.count) UUIDs for \(count), \(reader.bytes.count - reader.offset) bytes left")
        }
        return uuids
    }

    /// Why a grouped record does not hold what it says.
    private struct Damage: Error {
        var reason: String
    }

    static func damaged(_ reason: String) -> HKError {
        HKError(
            .errorDatabaseInaccessible,
            "The health store is damaged: a deletion record does not list its UUIDs (\(reason)).")
    }
}
