import Foundation
import HealthKitModel
import WorkoutEngine

// CoreLocation's location type, as much of it as workout routes use, with CoreLocation's names and initializers.
//
// Where it lives (OpenHealthKit's choice; Linux has no CoreLocation): in the OpenHealthKit module, so
// `import OpenHealthKit` makes `CLLocation` visible exactly where an app on Apple's platforms writes
// `import CoreLocation` next to `import HealthKit`. Apple's route code compiles with only the imports changed.
// Only the values are modelled (no location manager, no geocoding); `distance(from:)` is the great-circle
// distance on a sphere of the mean Earth radius (6 371 008.8 m, IUGG), which CoreLocation does not document.

/// Degrees of latitude or longitude. CoreLocation: CLLocationDegrees.
public typealias CLLocationDegrees = Double
/// Metres. CoreLocation: CLLocationDistance.
public typealias CLLocationDistance = Double
/// Metres; negative means invalid. CoreLocation: CLLocationAccuracy.
public typealias CLLocationAccuracy = Double
/// Degrees clockwise from true north; negative means invalid. CoreLocation: CLLocationDirection.
public typealias CLLocationDirection = Double
/// Degrees; negative means invalid. CoreLocation: CLLocationDirectionAccuracy.
public typealias CLLocationDirectionAccuracy = Double
/// Metres per second; negative means invalid. CoreLocation: CLLocationSpeed.
public typealias CLLocationSpeed = Double
/// Metres per second; negative means invalid. CoreLocation: CLLocationSpeedAccuracy.
public typealias CLLocationSpeedAccuracy = Double

/// A location reading: coordinate, altitude, accuracies, course, speed and time. CoreLocation: CLLocation.
open class CLLocation: NSObject, NSCopying, @unchecked Sendable {
    public let coordinate: CLLocationCoordinate2D
    public let altitude: CLLocationDistance
    public let horizontalAccuracy: CLLocationAccuracy
    public let verticalAccuracy: CLLocationAccuracy
    public let course: CLLocationDirection
    public let courseAccuracy: CLLocationDirectionAccuracy
    public let speed: CLLocationSpeed
    public let speedAccuracy: CLLocationSpeedAccuracy
    public let timestamp: Date
    /// The altitude above mean sea level (CoreLocation's `ellipsoidalAltitude` is not modelled apart).
    public var ellipsoidalAltitude: CLLocationDistance { altitude }

    /// A location at the current time, altitude 0, accuracy 0 horizontally and invalid (−1) vertically.
    public convenience init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.init(
            coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude), altitude: 0,
            horizontalAccuracy: 0, verticalAccuracy: -1, course: -1, courseAccuracy: -1, speed: -1,
            speedAccuracy: -1, timestamp: Date())
    }

    public convenience init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance,
        horizontalAccuracy hAccuracy: CLLocationAccuracy, verticalAccuracy vAccuracy: CLLocationAccuracy,
        timestamp: Date
    ) {
        self.init(
            coordinate: coordinate, altitude: altitude, horizontalAccuracy: hAccuracy, verticalAccuracy: vAccuracy,
            course: -1, courseAccuracy: -1, speed: -1, speedAccuracy: -1, timestamp: timestamp)
    }

    public convenience init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance,
        horizontalAccuracy hAccuracy: CLLocationAccuracy, verticalAccuracy vAccuracy: CLLocationAccuracy,
        course: CLLocationDirection, speed: CLLocationSpeed, timestamp: Date
    ) {
        self.init(
            coordinate: coordinate, altitude: altitude, horizontalAccuracy: hAccuracy, verticalAccuracy: vAccuracy,
            course: course, courseAccuracy: -1, speed: speed, speedAccuracy: -1, timestamp: timestamp)
    }

    public init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance,
        horizontalAccuracy hAccuracy: CLLocationAccuracy, verticalAccuracy vAccuracy: CLLocationAccuracy,
        course: CLLocationDirection, courseAccuracy: CLLocationDirectionAccuracy, speed: CLLocationSpeed,
        speedAccuracy: CLLocationSpeedAccuracy, timestamp: Date
    ) {
        self.coordinate = coordinate
        self.altitude = altitude
        horizontalAccuracy = hAccuracy
        verticalAccuracy = vAccuracy
        self.course = course
        self.courseAccuracy = courseAccuracy
        self.speed = speed
        self.speedAccuracy = speedAccuracy
        self.timestamp = timestamp
    }

    /// The great-circle (haversine) distance in metres to another location.
    public func distance(from location: CLLocation) -> CLLocationDistance {
        let radius = 6_371_008.8
        let φ1 = coordinate.latitude * .pi / 180, φ2 = location.coordinate.latitude * .pi / 180
        let Δφ = φ2 - φ1, Δλ = (location.coordinate.longitude - coordinate.longitude) * .pi / 180
        let a = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * radius * atan2(sqrt(a), sqrt(max(0, 1 - a)))
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CLLocation else { return false }
        return coordinate == other.coordinate && altitude == other.altitude && timestamp == other.timestamp
            && horizontalAccuracy == other.horizontalAccuracy && verticalAccuracy == other.verticalAccuracy
            && course == other.course && speed == other.speed
    }

    open override var hash: Int { coordinate.hashValue ^ timestamp.hashValue }

    open override var description: String {
        "<\(coordinate.latitude),\(coordinate.longitude)> +/- \(horizontalAccuracy)m (speed \(speed) mps / course \(course)) @ \(timestamp)"
    }
}
