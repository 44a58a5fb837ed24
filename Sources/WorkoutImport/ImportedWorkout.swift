import Foundation
import OpenHealthKit

/// A workout read from a file (FIT or TCX), before it is saved: what ``WorkoutImporter`` turns into an `HKWorkout`
/// through `HKWorkoutBuilder`.
public struct ImportedWorkout: Sendable {
    /// A reading at an instant.
    public struct Reading: Sendable, Hashable {
        public var date: Date
        public var value: Double
        public init(date: Date, value: Double) {
            self.date = date
            self.value = value
        }
    }

    /// A part of a multisport workout (a FIT session), or the whole of a single-sport one.
    public struct Leg: Sendable, Hashable {
        public var activityType: HKWorkoutActivityType
        public var locationType: HKWorkoutSessionLocationType
        public var interval: DateInterval
    }

    /// The recording device, as the file names it.
    public struct Device: Sendable, Hashable {
        public var name: String?
        public var manufacturer: String?
        public var model: String?
        public var serialNumber: String?
        public var softwareVersion: String?

        public var hkDevice: HKDevice {
            HKDevice(
                name: name, manufacturer: manufacturer, model: model, hardwareVersion: nil, firmwareVersion: nil,
                softwareVersion: softwareVersion, localIdentifier: serialNumber, udiDeviceIdentifier: nil)
        }
    }

    /// Where a damaged file stopped being readable, for `--salvage`.
    public struct Damage: Sendable, Hashable {
        /// The first byte that could not be decoded.
        public var offset: Int
        /// Bytes of the file from there to its end, which were not imported.
        public var bytesLost: Int
        /// The decoder's sentence.
        public var reason: String
    }

    public var format: String
    /// `HKMetadataKeyExternalUUID`: the same activity gives the same identifier, so importing it twice is noticed.
    public var externalIdentifier: String
    public var activityType: HKWorkoutActivityType
    public var locationType: HKWorkoutSessionLocationType
    public var start: Date
    public var end: Date
    public var device: Device?
    public var heartRate: [Reading] = []
    public var power: [Reading] = []
    public var cadence: [Reading] = []
    public var speed: [Reading] = []
    /// Cumulative distance in metres, as the file gives it.
    public var distance: [Reading] = []
    /// Running dynamics, from a watch's standard fields or a pod's developer fields (`RunningDynamics`): stride
    /// (step) length in metres, vertical oscillation in centimetres, ground contact time in milliseconds.
    public var strideLength: [Reading] = []
    public var verticalOscillation: [Reading] = []
    public var groundContactTime: [Reading] = []
    /// Beat-to-beat intervals in seconds, in order (FIT `hrv`), and the time of the first beat.
    public var rrIntervals: [Double] = []
    public var pauses: [DateInterval] = []
    /// Every lap the file holds. See ``markedLaps`` for those that become lap events.
    public var laps: [DateInterval] = []
    /// More than one leg: a multisport workout whose legs become workout activities.
    public var legs: [Leg] = []
    /// The session's total energy in kcal, when the file gives it.
    public var totalEnergy: Double?
    public var damage: Damage?
    /// How many records (samples' source messages) were read.
    public var recordCount = 0
    /// Positions (FIT record position_lat/long and altitude, TCX Position and AltitudeMeters, GPX trkpt), in time
    /// order: saved as the workout's route (`HKWorkoutRoute`).
    public var route: [Position] = []

    /// A position at an instant.
    public struct Position: Sendable, Hashable {
        public var date: Date
        public var latitude: Double
        public var longitude: Double
        /// Metres; nil when the file gives none.
        public var altitude: Double?
        public init(date: Date, latitude: Double, longitude: Double, altitude: Double? = nil) {
            self.date = date
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
        }

        /// The position as a location (`verticalAccuracy` −1, CoreLocation's "invalid", without an altitude).
        public var location: CLLocation {
            CLLocation(
                coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude), altitude: altitude ?? 0,
                horizontalAccuracy: 0, verticalAccuracy: altitude == nil ? -1 : 0, timestamp: date)
        }
    }

    public init(
        format: String, externalIdentifier: String, activityType: HKWorkoutActivityType,
        locationType: HKWorkoutSessionLocationType, start: Date, end: Date
    ) {
        self.format = format
        self.externalIdentifier = externalIdentifier
        self.activityType = activityType
        self.locationType = locationType
        self.start = start
        self.end = end
    }
}

extension ImportedWorkout {
    /// The laps that were marked (by the person, or by the device's auto-lap): every lap but a leg's only lap when
    /// it covers the whole leg (within a second), or the workout's only lap when it covers the whole workout. FIT
    /// and TCX files need a lap per session even when nobody marked one; such a lap is the leg itself, and a lap
    /// event for it would show a lap nobody took (Strava, likewise, shows no laps for an activity of one lap).
    public var markedLaps: [DateInterval] {
        let spans = legs.isEmpty ? [DateInterval(start: start, end: max(start, end))] : legs.map(\.interval)
        var unmarked: Set<Int> = []
        for span in spans {
            let inside = laps.indices.filter { laps[$0].start >= span.start - 1 && laps[$0].end <= span.end + 1 }
            if inside.count == 1, let only = inside.first, abs(laps[only].start.timeIntervalSince(span.start)) <= 1,
                abs(laps[only].end.timeIntervalSince(span.end)) <= 1
            {
                unmarked.insert(only)
            }
        }
        return laps.indices.filter { !unmarked.contains($0) }.map { laps[$0] }
    }
}
