import ByteCoding
import FitnessSensors
import Foundation
import HealthKitModel

/// One thing a live recording did, as the journal keeps it. Replaying the entries in order rebuilds the session
/// and the builder after a crash. Dates are seconds since the reference date.
package enum JournalEntry: Codable, Equatable, Sendable {
    case sessionState(from: Int, to: Int, date: Double)
    case builderPhase(phase: Int, start: Double?, end: Double?)
    case event(type: Int, start: Double, end: Double, metadata: String?)
    case activityBegan(uuid: UUID, configuration: ConfigurationRecord, start: Double, metadata: String?)
    case activityEnded(uuid: UUID, end: Double)
    case metadata(String)
    /// A sample that is not a quantity sample (a heartbeat series) was saved; associate it when finishing.
    case associated(uuid: UUID)
    /// The zones a zoned type uses, fixed when collection began (thresholds in the storage unit; source as stored).
    case zoneConfiguration(type: String, source: Int, boundaries: [Double])
}

/// A workout configuration as plain values.
package struct ConfigurationRecord: Codable, Equatable, Sendable {
    package var activityType: UInt
    package var locationType: Int
    package var swimmingLocationType: Int
    package var lapLengthMeters: Double?

    package init(_ configuration: HKWorkoutConfiguration) {
        activityType = configuration.activityType.rawValue
        locationType = configuration.locationType.rawValue
        swimmingLocationType = configuration.swimmingLocationType.rawValue
        lapLengthMeters = configuration.lapLength.map { $0.doubleValue(for: .meter()) }
    }

    package func configuration() throws -> HKWorkoutConfiguration {
        guard let activity = HKWorkoutActivityType(rawValue: activityType),
            let location = HKWorkoutSessionLocationType(rawValue: locationType),
            let swimming = HKWorkoutSwimmingLocationType(rawValue: swimmingLocationType)
        else {
            throw HKError(.errorDatabaseInaccessible, "A journaled workout configuration is damaged.")
        }
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = activity
        configuration.locationType = location
        configuration.swimmingLocationType = swimming
        configuration.lapLength = lapLengthMeters.map { HKQuantity(unit: .meter(), doubleValue: $0) }
        return configuration
    }
}

/// The binary form of a batch of collected samples: a little-endian count, then per sample
/// uuid (16) · type id (u32) · start (f64) · end (f64) · value (f64) · device id (u32, 0 = none) · flags (u8),
/// followed by a u16-length unit string when flag bit 0 is set and a u32-length metadata JSON when bit 1 is;
/// bit 2 marks a sample the app added (kept when the workout is discarded), bit 3 a quantity the store holds already
/// (counted, never saved: ``CollectedSample/alreadyStored``).
/// Store ids (types, devices) are those of the same store file.
package enum SampleBatchCodec {
    /// Encodes samples; `typeID` and `deviceID` give the store ids of a type code and of a device code (never 0).
    package static func encode(
        _ samples: [CollectedSample], typeID: (UInt16) throws -> Int64,
        deviceID: (UInt32) throws -> Int64
    ) rethrows -> [UInt8] {
        var writer = ByteWriter(capacity: 4 + samples.count * 49)
        writer.write(UInt32(samples.count))
        for sample in samples {
            withUnsafeBytes(of: sample.uuid.uuid) { writer.write(contentsOf: $0) }
            writer.write(UInt32(truncatingIfNeeded: try typeID(sample.typeCode)))
            writer.write(sample.start.bitPattern)
            writer.write(sample.end.bitPattern)
            writer.write(sample.value.bitPattern)
            writer.write(UInt32(truncatingIfNeeded: sample.deviceCode == 0 ? 0 : try deviceID(sample.deviceCode)))
            let flags: UInt8 =
                (sample.unitString == nil ? 0 : 1) | (sample.metadataJSON == nil ? 0 : 2) | (sample.appAdded ? 4 : 0)
                | (sample.alreadyStored ? 8 : 0)
            writer.write(flags)
            if let unit = sample.unitString {
                let bytes = Array(unit.utf8)
                writer.write(UInt16(truncatingIfNeeded: bytes.count))
                writer.write(contentsOf: bytes.prefix(Int(UInt16.max)))
            }
            if let metadata = sample.metadataJSON {
                let bytes = Array(metadata.utf8)
                writer.write(UInt32(bytes.count))
                writer.write(contentsOf: bytes)
            }
        }
        return writer.bytes
    }

    /// One decoded record, with store ids still unresolved.
    package struct Record {
        package var uuid: UUID
        package var typeID: Int64
        package var start: Double
        package var end: Double
        package var value: Double
        package var deviceID: Int64?
        package var unitString: String?
        package var metadataJSON: String?
        package var appAdded: Bool
        /// See ``CollectedSample/alreadyStored``: never moved into the store's samples, whether the workout is
        /// finished or discarded.
        package var alreadyStored = false
    }

    package static func decode(_ bytes: [UInt8]) throws(DecodeError) -> [Record] {
        var reader = ByteReader(bytes)
        let count = Int(try reader.readUInt32("sample count"))
        guard count <= bytes.count / 49 else { throw DecodeError("sample count \(count) larger than the batch", at: 0) }
        var records: [Record] = []
        records.reserveCapacity(count)
        for _ in 0 ..< count {
            let raw = Array(try reader.readBytes(16, "sample UUID"))
            let uuid = UUID(
                uuid: (
                    raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7], raw[8], raw[9], raw[10],
                    raw[11], raw[12], raw[13], raw[14], raw[15]
                ))
            let typeID = Int64(try reader.readUInt32("type id"))
            let start = Double(
                bitPattern: UInt64(try reader.readUInt32("start")) | UInt64(try reader.readUInt32("start")) << 32)
            let end = Double(
                bitPattern: UInt64(try reader.readUInt32("end")) | UInt64(try reader.readUInt32("end")) << 32)
            let value = Double(
                bitPattern: UInt64(try reader.readUInt32("value")) | UInt64(try reader.readUInt32("value")) << 32)
            let device = Int64(try reader.readUInt32("device id"))
            let flags = try reader.readUInt8("flags")
            var unit: String?
            var metadata: String?
            if flags & 1 != 0 {
                let length = Int(try reader.readUInt16("unit length"))
                unit = String(decoding: try reader.readBytes(length, "unit"), as: UTF8.self)
            }
            if flags & 2 != 0 {
                let length = Int(try reader.readUInt32("metadata length"))
                metadata = String(decoding: try reader.readBytes(length, "metadata"), as: UTF8.self)
            }
            records.append(
                Record(
                    uuid: uuid, typeID: typeID, start: start, end: end, value: value,
                    deviceID: device == 0 ? nil : device, unitString: unit, metadataJSON: metadata,
                    appAdded: flags & 4 != 0, alreadyStored: flags & 8 != 0))
        }
        try reader.expectEnd("the sample batch")
        return records
    }
}
