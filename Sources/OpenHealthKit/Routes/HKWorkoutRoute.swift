import ByteCoding
import Foundation

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

    static func decode(_ bytes: [UInt8]) throws -> [CLLocation] {
        var reader = ByteReader(bytes)
        let count: Int
        do throws(DecodeError) { count = Int(try reader.readUInt32("location count")) } catch {
            throw HKError(.errorDatabaseInaccessible, "A stored workout route is truncated.")
        }
        guard bytes.count == 4 + count * fields * 8 else {
            throw HKError(
                .errorDatabaseInaccessible,
                "A stored workout route is damaged: \(bytes.count) bytes for \(count) locations.")
        }
        var locations: [CLLocation] = []
        locations.reserveCapacity(count)
        do throws(DecodeError) {
            func next() throws(DecodeError) -> Double { Double(bitPattern: try reader.readUInt64("location field")) }
            for _ in 0 ..< count {
                let time = try next(), latitude = try next(), longitude = try next(), altitude = try next()
                let horizontal = try next(), vertical = try next(), course = try next(), courseAccuracy = try next()
                let speed = try next(), speedAccuracy = try next()
                locations.append(
                    CLLocation(
                        coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude),
                        altitude: altitude, horizontalAccuracy: horizontal, verticalAccuracy: vertical,
                        course: course, courseAccuracy: courseAccuracy, speed: speed,
                        speedAccuracy: speedAccuracy, timestamp: Date(timeIntervalSinceReferenceDate: time)))
            }
        } catch {
            throw HKError(.errorDatabaseInaccessible, "A stored workout route is truncated.")
        }
        return locations
    }
}
