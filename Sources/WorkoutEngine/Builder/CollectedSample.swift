import Foundation
import HealthKitModel
import Synchronization

/// A quantity sample a builder has collected, as plain values: what the journal writes and statistics read.
///
/// Live data never becomes `HKQuantitySample` objects on the way in: a reading turns into one of these, which is
/// cheap to make, to journal and to fold into statistics. Objects are made when the store is read.
///
/// A live sample holds no reference: its type and device are small codes (the type's place in the catalog, the
/// device's in ``DeviceCodes``), so copying one is copying bytes, with no reference counting. Only a sample an app
/// added may carry a unit and metadata, in `extras`.
package struct CollectedSample: Sendable {
    package var uuid: UUID
    /// Seconds since the reference date.
    package var start: Double
    package var end: Double
    /// The value in the type's storage unit.
    package var value: Double
    package var typeCode: UInt16
    /// Added by the app (`addSamples`), not collected by a data source: kept even if the workout is discarded.
    package var appAdded = false
    /// A quantity the store holds already: of a sample the app saved (or a series it finished) before adding it to
    /// the builder. It counts towards the statistics and zones like any other, and is never saved again: the stored
    /// sample is associated with the workout instead, whole.
    package var alreadyStored = false
    /// The device's code in ``DeviceCodes`` (0: none).
    package var deviceCode: UInt32
    /// The unit and metadata of a sample the app added; nil for live samples.
    package var extras: Extras?

    package final class Extras: Sendable {
        /// The sample's own unit, when it is not the storage unit.
        package let unitString: String?
        /// Metadata as the store writes it (JSON).
        package let metadataJSON: String?
        package init(unitString: String?, metadataJSON: String?) {
            self.unitString = unitString
            self.metadataJSON = metadataJSON
        }
    }

    package var type: HKQuantityType { HKQuantityType.forCode(typeCode) }
    package var device: HKDevice? { DeviceCodes.device(deviceCode) }
    package var unitString: String? { extras?.unitString }
    package var metadataJSON: String? { extras?.metadataJSON }

    /// A live sample, from codes looked up beforehand.
    package init(uuid: UUID, typeCode: UInt16, start: Double, end: Double, value: Double, deviceCode: UInt32) {
        self.uuid = uuid
        self.typeCode = typeCode
        self.start = start
        self.end = end
        self.value = value
        self.deviceCode = deviceCode
    }

    package init(
        uuid: UUID = FastUUID.next(), type: HKQuantityType, start: Double, end: Double, value: Double,
        unitString: String? = nil, metadataJSON: String? = nil, device: HKDevice? = nil
    ) {
        self.init(
            uuid: uuid, typeCode: type.code, start: start, end: end, value: value,
            deviceCode: DeviceCodes.code(for: device))
        if unitString != nil || metadataJSON != nil {
            extras = Extras(unitString: unitString, metadataJSON: metadataJSON)
        }
    }

    /// The values of a quantity sample an app passed in.
    package init(_ sample: HKQuantitySample) throws {
        let storage = sample.quantityType.storageUnit
        self.init(
            uuid: sample.uuid, type: sample.quantityType, start: sample.startDate.storeValue,
            end: sample.endDate.storeValue, value: sample.quantity.doubleValue(for: storage),
            unitString: sample.quantity.unit == storage ? nil : sample.quantity.unit.unitString,
            metadataJSON: try MetadataCoding.encode(sample.metadata), device: sample.device)
    }
}

/// The devices collected samples name, by small codes: a sample holds a code, not a reference.
///
/// Process-wide and append-only. Devices are kept by value (equal devices share a code), so the table grows with
/// the distinct devices a process records from or is given, not with the samples or the sessions.
package enum DeviceCodes {
    private struct Table {
        package var devices: [HKDevice] = []
        package var codes: [HKDevice: UInt32] = [:]
    }
    private static let table = Mutex(Table())

    /// The code of a device (0 for none).
    package static func code(for device: HKDevice?) -> UInt32 {
        guard let device else { return 0 }
        return table.withLock { table in
            if let code = table.codes[device] { return code }
            table.devices.append(device)
            let code = UInt32(table.devices.count)
            table.codes[device] = code
            return code
        }
    }

    /// The device of a code (nil for 0).
    package static func device(_ code: UInt32) -> HKDevice? {
        guard code != 0 else { return nil }
        return table.withLock { $0.devices[Int(code) - 1] }
    }
}

/// Random (version 4) UUIDs without a system call each: a xoshiro256** generator seeded from the system's
/// random source. swift-corelibs-foundation's `UUID()` opens `/dev/urandom` for every UUID, which would cost
/// more than everything else a live reading does.
package enum FastUUID {
    private static let state = Mutex(Xoshiro256())

    package static func next() -> UUID {
        let (a, b) = state.withLock { generator in (generator.next(), generator.next()) }
        return make(a, b)
    }

    /// A UUID from a generator the caller owns (one per sensor: no lock on the hot path).
    package static func next(using generator: inout Xoshiro256) -> UUID {
        make(generator.next(), generator.next())
    }

    private static func make(_ a: UInt64, _ b: UInt64) -> UUID {
        var bytes = (
            UInt8(truncatingIfNeeded: a), UInt8(truncatingIfNeeded: a >> 8), UInt8(truncatingIfNeeded: a >> 16),
            UInt8(truncatingIfNeeded: a >> 24), UInt8(truncatingIfNeeded: a >> 32), UInt8(truncatingIfNeeded: a >> 40),
            UInt8(truncatingIfNeeded: a >> 48), UInt8(truncatingIfNeeded: a >> 56), UInt8(truncatingIfNeeded: b),
            UInt8(truncatingIfNeeded: b >> 8), UInt8(truncatingIfNeeded: b >> 16), UInt8(truncatingIfNeeded: b >> 24),
            UInt8(truncatingIfNeeded: b >> 32), UInt8(truncatingIfNeeded: b >> 40), UInt8(truncatingIfNeeded: b >> 48),
            UInt8(truncatingIfNeeded: b >> 56)
        )
        bytes.6 = (bytes.6 & 0x0F) | 0x40  // version 4
        bytes.8 = (bytes.8 & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(uuid: bytes)
    }

    package struct Xoshiro256: Sendable {
        private var s: (UInt64, UInt64, UInt64, UInt64)

        package init() {
            var system = SystemRandomNumberGenerator()
            s = (system.next(), system.next(), system.next(), system.next())
            if s == (0, 0, 0, 0) { s.0 = 1 }
        }

        package mutating func next() -> UInt64 {
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
