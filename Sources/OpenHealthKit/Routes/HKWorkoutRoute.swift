import ByteCoding
import Foundation
import HealthKitModel
import WorkoutEngine

/// The locations a workout went through, in time order; read them with ``HKWorkoutRouteQuery``.
///
/// HealthKit: HKWorkoutRoute. Made by ``HKWorkoutRouteBuilder``; its dates are its first and last locations'.
public final class HKWorkoutRoute: HKSeriesSample, @unchecked Sendable {
    /// The locations, when the route was made in this process (builders); nil for routes read from the store.
    let locations: [CLLocation]?

    init(
        count: Int, startDate: Date, endDate: Date, uuid: UUID, metadata: [String: Any]?, device: HKDevice?,
        sourceRevision: HKSourceRevision?, locations: [CLLocation]?
    ) {
        self.locations = locations
        super.init(
            seriesType: .workoutRoute(), count: count, startDate: startDate, endDate: endDate, uuid: uuid,
            metadata: metadata, device: device, sourceRevision: sourceRevision)
    }

    /// Archives the route with its locations when it holds them (one made in this process).
    public override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        if let locations { coder.encode(Data(WorkoutRouteCodec.encode(locations)), forKey: "locations") }
    }

    public required convenience init?(coder: NSCoder) {
        guard let fields = HKSample.decodeSampleFields(coder), fields.type == HKSeriesType.workoutRoute() else {
            SecureCoding.fail(coder, "an HKWorkoutRoute")
            return nil
        }
        var locations: [CLLocation]? = nil
        if let data = SecureCoding.decodeOptional(NSData.self, coder, "locations") {
            guard let decoded = try? WorkoutRouteCodec.decode(Array(data as Data)) else {
                SecureCoding.fail(coder, "an HKWorkoutRoute")
                return nil
            }
            locations = decoded
        }
        self.init(
            count: coder.decodeInteger(forKey: "count"), startDate: fields.start, endDate: fields.end,
            uuid: fields.object.uuid, metadata: fields.object.metadata, device: fields.object.device,
            sourceRevision: fields.object.sourceRevision, locations: locations)
    }

    public override var description: String {
        "<HKWorkoutRoute \(count) locations \(uuid) \(startDate) – \(endDate)>"
    }
}

/// How a route is stored: a little-endian u32 count, then per location ten little-endian f64: time (seconds since
/// the reference date), latitude, longitude, altitude, horizontal and vertical accuracy, course, course accuracy,
/// speed, speed accuracy — every value a `CLLocation` holds, so a route reads back exactly as it was inserted.
enum WorkoutRouteCodec {
    static let fields = 10

    static func encode(_ locations: [CLLocation]) -> [UInt8] {
        var out = ByteWriter(capacity: 4 + locations.count * fields * 8)
        out.write(UInt32(locations.count))
        for location in locations {
            for value in [
                location.timestamp.timeIntervalSinceReferenceDate, location.coordinate.latitude,
                location.coordinate.longitude, location.altitude, location.horizontalAccuracy,
                location.verticalAccuracy, location.course, location.courseAccuracy, location.speed,
                location.speedAccuracy,
            ] {
                out.write(value.bitPattern)
            }
        }
        return out.bytes
    }

    /// Why stored bytes are not a route, in words that follow "is damaged: ".
    struct Damage: Error, Equatable {
        let reason: String
    }

    /// Decodes a route, checking what every route the builder saves holds: as many bytes as its count says, valid
    /// coordinates, finite times in order.
    static func decode(_ bytes: [UInt8]) throws(Damage) -> [CLLocation] {
        var reader = ByteReader(bytes)
        let count: Int
        do throws(DecodeError) { count = Int(try reader.readUInt32("location count")) } catch {
            throw Damage(reason: "\(bytes.count) bytes, too few for a location count")
        }
        guard bytes.count == 4 + count * fields * 8 else {
            throw Damage(reason: "\(bytes.count) bytes for \(count) locations")
        }
        var locations: [CLLocation] = []
        locations.reserveCapacity(count)
        var values = [Double](repeating: 0, count: fields)
        for index in 0 ..< count {
            for field in 0 ..< fields {
                // The length was checked: every read is inside the bytes.
                values[field] = Double(bitPattern: (try? reader.readUInt64("location field")) ?? 0)
            }
            let (time, latitude, longitude) = (values[0], values[1], values[2])
            let coordinate = CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
            guard latitude.isFinite, longitude.isFinite, CLLocationCoordinate2DIsValid(coordinate) else {
                throw Damage(
                    reason: "location \(index + 1) of \(count) has no valid coordinate (\(latitude), \(longitude))")
            }
            guard time.isFinite, time >= (locations.last?.timestamp.timeIntervalSinceReferenceDate ?? -.infinity) else {
                throw Damage(reason: "location \(index + 1) of \(count) has a time out of order (\(time))")
            }
            locations.append(
                CLLocation(
                    coordinate: coordinate, altitude: values[3], horizontalAccuracy: values[4],
                    verticalAccuracy: values[5], course: values[6], courseAccuracy: values[7], speed: values[8],
                    speedAccuracy: values[9], timestamp: Date(timeIntervalSinceReferenceDate: time)))
        }
        return locations
    }
}
