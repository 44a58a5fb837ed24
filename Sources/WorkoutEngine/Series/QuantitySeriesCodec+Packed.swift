import Foundation
import HealthKitModel

/// Column mode 4 (from version 3 of the series form): values packed in a fixed number of bits around an offset.
///
/// ```text
/// u8      mode = 4
/// varint  zigzag(offset)          the column's median
/// u8      width w (1…32)
/// bytes   ⌈n·w / 8⌉: zigzag(value − offset) for each value, w bits each, least significant bit first;
///         the all-ones pattern (2^w − 1) escapes to a varint that follows the packed bytes
/// varints the escaped values' zigzag(value − offset), in order
/// ```
///
/// The nibble modes fit values within ±7 of their offset. Arrival times of a sensor that notifies every 0.5 s, in
/// milliseconds, spread over about ±20 around the median interval (the BLE connection events they wait for): five
/// or six bits each, where a nibble escapes to a nibble and a byte. The encoder tries every width and keeps the
/// shortest of every mode, so a column is never longer than before.
extension QuantitySeriesCodec {
    package static let packedMode: UInt8 = 4
    package static let maximumPackedWidth = 32

    private static func varintLength(_ value: UInt64) -> Int {
        var value = value
        var length = 1
        while value >= 0x80 {
            value >>= 7
            length += 1
        }
        return length
    }

    /// The column in mode 4 at the width that makes it shortest.
    package static func packedColumn(_ values: [Int64], offset: Int64) -> Data {
        let zigzagged = values.map { zigzag($0 &- offset) }
        var bestWidth = 1
        var bestLength = Int.max
        for width in 1 ... 24 {
            let escape = UInt64(1) << UInt64(width) - 1
            var length = (zigzagged.count * width + 7) / 8
            for value in zigzagged where value >= escape { length += varintLength(value) }
            if length < bestLength {
                bestLength = length
                bestWidth = width
            }
        }
        var out = Data([packedMode])
        writeVarint(zigzag(offset), to: &out)
        out.append(UInt8(bestWidth))
        let escape = UInt64(1) << UInt64(bestWidth) - 1
        var overflow = Data()
        var accumulator: UInt64 = 0
        var bits = 0
        for value in zigzagged {
            let field = value >= escape ? escape : value
            if value >= escape { writeVarint(value, to: &overflow) }
            accumulator |= field << UInt64(bits)
            bits += bestWidth
            while bits >= 8 {
                out.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator >>= 8
                bits -= 8
            }
        }
        if bits > 0 { out.append(UInt8(truncatingIfNeeded: accumulator)) }
        out.append(overflow)
        return out
    }
}

extension QuantitySeriesCodec.Reader {
    /// Reads a mode-4 column after its mode byte.
    package mutating func packedColumn(_ n: Int) throws -> [Int64] {
        let offset = Self.unzigzagValue(try varint())
        let width = Int(try byte())
        guard (1 ... QuantitySeriesCodec.maximumPackedWidth).contains(width) else {
            throw QuantitySeriesCodec.damaged("packed width \(width) at byte \(self.offset - 1)")
        }
        let byteCount = (n * width + 7) / 8
        guard byteCount <= bytes.count - self.offset else {
            throw QuantitySeriesCodec.damaged("truncated at byte \(bytes.count)")
        }
        let escape = UInt64(1) << UInt64(width) - 1
        var fields: [UInt64] = []
        fields.reserveCapacity(n)
        var accumulator: UInt64 = 0
        var bits = 0
        for _ in 0 ..< n {
            while bits < width {
                accumulator |= UInt64(try byte()) << UInt64(bits)
                bits += 8
            }
            fields.append(accumulator & escape)
            accumulator >>= UInt64(width)
            bits -= width
        }
        var result: [Int64] = []
        result.reserveCapacity(n)
        for field in fields {
            result.append(Self.unzigzagValue(field == escape ? try varint() : field) &+ offset)
        }
        return result
    }
}
