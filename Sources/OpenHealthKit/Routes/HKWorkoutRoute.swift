import Foundation

/// The locations a workout went through, in time order; read them with ``HKWorkoutRouteQuery``.
///
/// HealthKit: HKWorkoutRoute. Made by ``HKWorkoutRouteBuilder``; its dates are its first and last locations'.
public final class HKWorkoutRoute: HKSeriesSample, @unchecked Sendable {
    /// The locations, when the route was made in this process (builders); nil for routes read from the store.
    let locations: [CLLocation]?

    init(count: Int, startDate: Date, endDate: Date, uuid: UUID, metadata: [String: Any]?, device: HKDevice?,
         sourceRevision: HKSourceRevision?, locations: [CLLocation]?) {
        self.locations = locations
        super.init(seriesType: .workoutRoute(), count: count, startDate: startDate, endDate: endDate, uuid: uuid,
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
        self.init(count: coder.decodeInteger(forKey: "count"), startDate: fields.start, endDate: fields.end,
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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4 + locations.count * fields * 8)
        let count = UInt32(locations.count)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: count >> UInt32(shift))) }
        for location in locations {
            for value in [location.timestamp.timeIntervalSinceReferenceDate, location.coordinate.latitude,
                          location.coordinate.longitude, location.altitude, location.horizontalAccuracy,
                          location.verticalAccuracy, location.course, location.courseAccuracy, location.speed,
                          location.speedAccuracy] {
                let bits = value.bitPattern
                for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
            }
        }
        return bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> [CLLocation] {
        guard bytes.count >= 4 else { throw HKError(.errorDatabaseInaccessible, "A stored workout route is truncated.") }
        let count = Int(UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24)
        guard bytes.count == 4 + count * fields * 8 else {
            throw HKError(.errorDatabaseInaccessible, "A stored workout route is damaged: \(bytes.count) bytes for \(count) locations.")
        }
        var locations: [CLLocation] = []
        locations.reserveCapacity(count)
        var index = 4
        func next() -> Double {
            var bits: UInt64 = 0
            for k in 0 ..< 8 { bits |= UInt64(bytes[index + k]) << UInt64(8 * k) }
            index += 8
            return Double(bitPattern: bits)
        }
        for _ in 0 ..< count {
            let time = next(), latitude = next(), longitude = next(), altitude = next(), horizontal = next(), vertical = next()
            let course = next(), courseAccuracy = next(), speed = next(), speedAccuracy = next()
            locations.append(CLLocation(coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude),
                                        altitude: altitude, horizontalAccuracy: horizontal, verticalAccuracy: vertical,
                                        course: course, courseAccuracy: courseAccuracy, speed: speed,
                                        speedAccuracy: speedAccuracy, timestamp: Date(timeIntervalSinceReferenceDate: time)))
        }
        return locations
    }
}
