import Foundation
import Synchronization

/// A quantity sample a builder has collected, as plain values: what the journal writes and statistics read.
///
/// Live data never becomes `HKQuantitySample` objects on the way in: a reading turns into one of these, which is
/// cheap to make, to journal and to fold into statistics. Objects are made when the store is read.
struct CollectedSample: @unchecked Sendable {
    var uuid: UUID
    var type: HKQuantityType
    /// Seconds since the reference date.
    var start: Double
    var end: Double
    /// The value in the type's storage unit.
    var value: Double
    /// The sample's own unit, when it is not the storage unit.
    var unitString: String?
    /// Metadata as the store writes it (JSON), if any.
    var metadataJSON: String?
    var device: HKDevice?
    /// Added by the app (`addSamples`), not collected by a data source: kept even if the workout is discarded.
    var appAdded = false

    init(uuid: UUID = FastUUID.next(), type: HKQuantityType, start: Double, end: Double, value: Double,
         unitString: String? = nil, metadataJSON: String? = nil, device: HKDevice? = nil) {
        self.uuid = uuid
        self.type = type
        self.start = start
        self.end = end
        self.value = value
        self.unitString = unitString
        self.metadataJSON = metadataJSON
        self.device = device
    }

    /// The values of a quantity sample an app passed in.
    init(_ sample: HKQuantitySample) throws {
        let storage = sample.quantityType.storageUnit
        self.init(uuid: sample.uuid, type: sample.quantityType, start: sample.startDate.storeValue,
                  end: sample.endDate.storeValue, value: sample.quantity.doubleValue(for: storage),
                  unitString: sample.quantity.unit == storage ? nil : sample.quantity.unit.unitString,
                  metadataJSON: try MetadataCoding.encode(sample.metadata), device: sample.device)
    }
}

/// Random (version 4) UUIDs without a system call each: a xoshiro256** generator seeded from the system's
/// random source. swift-corelibs-foundation's `UUID()` opens `/dev/urandom` for every UUID, which would cost
/// more than everything else a live reading does.
enum FastUUID {
    private static let state = Mutex(Xoshiro256())

    static func next() -> UUID {
        let (a, b) = state.withLock { generator in (generator.next(), generator.next()) }
        return make(a, b)
    }

    /// A UUID from a generator the caller owns (one per sensor: no lock on the hot path).
    static func next(using generator: inout Xoshiro256) -> UUID {
        make(generator.next(), generator.next())
    }

    private static func make(_ a: UInt64, _ b: UInt64) -> UUID {
        var bytes = (UInt8(truncatingIfNeeded: a), UInt8(truncatingIfNeeded: a >> 8), UInt8(truncatingIfNeeded: a >> 16),
                     UInt8(truncatingIfNeeded: a >> 24), UInt8(truncatingIfNeeded: a >> 32), UInt8(truncatingIfNeeded: a >> 40),
                     UInt8(truncatingIfNeeded: a >> 48), UInt8(truncatingIfNeeded: a >> 56), UInt8(truncatingIfNeeded: b),
                     UInt8(truncatingIfNeeded: b >> 8), UInt8(truncatingIfNeeded: b >> 16), UInt8(truncatingIfNeeded: b >> 24),
                     UInt8(truncatingIfNeeded: b >> 32), UInt8(truncatingIfNeeded: b >> 40), UInt8(truncatingIfNeeded: b >> 48),
                     UInt8(truncatingIfNeeded: b >> 56))
        bytes.6 = (bytes.6 & 0x0F) | 0x40  // version 4
        bytes.8 = (bytes.8 & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(uuid: bytes)
    }

    struct Xoshiro256: Sendable {
        private var s: (UInt64, UInt64, UInt64, UInt64)

        init() {
            var system = SystemRandomNumberGenerator()
            s = (system.next(), system.next(), system.next(), system.next())
            if s == (0, 0, 0, 0) { s.0 = 1 }
        }

        mutating func next() -> UInt64 {
            let result = rotate(s.1 &* 5, 7) &* 9
            let t = s.1 << 17
            s.2 ^= s.0
            s.3 ^= s.1
            s.1 ^= s.2
            s.0 ^= s.3
            s.2 ^= t
            s.3 = rotate(s.3, 45)
            return result
        }

        private func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
    }
}
