import Foundation
import HealthKitModel

/// The UUIDs of the samples one sensor's readings make: RFC 9562 version 8 UUIDs whose first eight bytes are fixed
/// for the stream (60 random bits, and the version) and whose last eight are a counter (62 bits, and the variant).
///
/// They are as unique as random UUIDs for what a store holds: two streams share a prefix with probability 2⁻⁶⁰, and
/// a stream never repeats a counter. But they are consecutive, so when condensing folds a stream's samples away,
/// the deletion record that lets anchored queries report them (``DeletedUUIDsCodec``) costs a few bits per sample
/// instead of 16 bytes. HealthKit documents a sample's UUID only as unique, not its version.
///
/// No system call and no lock per UUID: the stream's owner (a channel's ``ReadingMapper``) is guarded by the
/// builder's lock.
package struct SampleUUIDStream {
    /// Bytes 0–7, big-endian, with the version nibble (8) in byte 6.
    package let high: UInt64
    private var counter: UInt64 = 0

    package init() {
        var generator = FastUUID.Xoshiro256()
        high = (generator.next() & ~0xF000) | 0x8000
    }

    /// The variant bits (10) in the top of byte 8.
    package static let variant: UInt64 = 0x8000_0000_0000_0000

    package mutating func next() -> UUID {
        counter = (counter &+ 1) & 0x3FFF_FFFF_FFFF_FFFF
        return Self.uuid(high: high, low: Self.variant | counter)
    }

    /// A UUID from its two big-endian halves.
    package static func uuid(high: UInt64, low: UInt64) -> UUID {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { bytes in
            bytes.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        return UUID(uuid: raw)
    }

    /// A UUID's two big-endian halves (any UUID: this is only a way of reading its 16 bytes).
    package static func halves(_ uuid: UUID) -> (high: UInt64, low: UInt64) {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            (
                UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            )
        }
    }
}
