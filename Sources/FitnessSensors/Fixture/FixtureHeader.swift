import Foundation

/// The first line of a fixture: what the file is, the sensors that took part and the session they recorded.
///
/// The header is the only line parsed with `JSONDecoder`; event lines have their own fast parser
/// (``FixtureLine``). See `fixtures/FORMAT.md` for the specification.
public struct FixtureHeader: Codable, Hashable, Sendable {
    /// The value of `"format"` in every fixture.
    public static let formatName = "openhealthkit-fixture"
    /// The version this code reads and writes.
    public static let currentVersion = 1

    public var format: String
    public var version: Int
    /// When the recording started, as ISO 8601 in UTC (`2026-11-21T07:00:00Z`); event times count from here.
    public var start: String
    public var session: Session
    public var sensors: [SensorDescription]
    /// Free-form provenance: the generator and its seed, or the recording tool.
    public var source: [String: String]?

    /// The workout the recording belongs to.
    public struct Session: Codable, Hashable, Sendable {
        /// The activity, as `HKWorkoutActivityType` names spell it (`running`, `cycling`, `swimBikeRun`, …).
        public var activity: String
        /// `indoor`, `outdoor` or `unknown`.
        public var location: String?
        /// `pool`, `openWater` or `unknown`, for swimming.
        public var swimmingLocation: String?
        /// Pool length in metres, for pool swimming.
        public var lapLengthMetres: Double?

        public init(
            activity: String, location: String? = nil, swimmingLocation: String? = nil, lapLengthMetres: Double? = nil
        ) {
            self.activity = activity
            self.location = location
            self.swimmingLocation = swimmingLocation
            self.lapLengthMetres = lapLengthMetres
        }
    }

    /// One sensor: events name it by `id`.
    public struct SensorDescription: Codable, Hashable, Sendable {
        /// Short and unique within the file (`strap`, `power`); event lines refer to it.
        public var id: String
        public var name: String
        /// GATT services, as 4-digit hex (`180D`, `1818`, `1816`, `180F`, `180A`).
        public var services: [String]
        /// What it measures, as ``SensorCapabilities`` names (`heartRate`, `rrIntervals`, `power`, …).
        public var capabilities: [String]
        public var deviceInformation: DeviceInformationFields?

        public init(
            id: String, name: String, services: [String], capabilities: [String],
            deviceInformation: DeviceInformationFields? = nil
        ) {
            self.id = id
            self.name = name
            self.services = services
            self.capabilities = capabilities
            self.deviceInformation = deviceInformation
        }
    }

    /// Device Information strings (DIS 1.1), all optional.
    public struct DeviceInformationFields: Codable, Hashable, Sendable {
        public var manufacturerName: String?
        public var modelNumber: String?
        public var serialNumber: String?
        public var hardwareRevision: String?
        public var firmwareRevision: String?
        public var softwareRevision: String?

        public init(_ information: DeviceInformation) {
            manufacturerName = information.manufacturerName
            modelNumber = information.modelNumber
            serialNumber = information.serialNumber
            hardwareRevision = information.hardwareRevision
            firmwareRevision = information.firmwareRevision
            softwareRevision = information.softwareRevision
        }

        /// The value sensors report.
        public var deviceInformation: DeviceInformation {
            var information = DeviceInformation()
            information.manufacturerName = manufacturerName
            information.modelNumber = modelNumber
            information.serialNumber = serialNumber
            information.hardwareRevision = hardwareRevision
            information.firmwareRevision = firmwareRevision
            information.softwareRevision = softwareRevision
            return information
        }
    }

    public init(start: Date, session: Session, sensors: [SensorDescription], source: [String: String]? = nil) {
        self.format = Self.formatName
        self.version = Self.currentVersion
        self.start = FixtureTime.iso8601(start)
        self.session = session
        self.sensors = sensors
        self.source = source
    }

    /// ``start`` as a date, or nil when it is not ISO 8601.
    public var startDate: Date? { FixtureTime.parseISO8601(start) }

    /// The header as one line of JSON (keys sorted, so output is reproducible), without the newline.
    public func encodedLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings, numbers and arrays cannot fail.
        let data = (try? encoder.encode(self)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

extension SensorCapabilities {
    /// Capability names, as fixture headers spell them.
    public static let names: [(String, SensorCapabilities)] = [
        ("heartRate", .heartRate), ("rrIntervals", .rrIntervals), ("power", .power), ("cadence", .cadence),
        ("speed", .speed), ("distance", .distance), ("energy", .energy), ("battery", .battery),
        ("steps", .steps), ("control", .control),
    ]

    /// The names of the capabilities in this set, in a fixed order.
    public var names: [String] { Self.names.filter { contains($0.1) }.map(\.0) }

    /// The set named by `names`; nil when a name is unknown.
    public init?(names: [String]) {
        var set = SensorCapabilities()
        for name in names {
            guard let capability = Self.names.first(where: { $0.0 == name })?.1 else { return nil }
            set.insert(capability)
        }
        self = set
    }
}

/// Fixture time helpers: ISO 8601 dates and millisecond offsets.
public enum FixtureTime {
    /// `2026-11-21T07:00:00Z` (or with `.123` milliseconds when not whole seconds).
    public static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        let whole = date.timeIntervalSince1970.rounded(.down) == date.timeIntervalSince1970
        formatter.formatOptions = whole ? [.withInternetDateTime] : [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    public static func parseISO8601(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// Milliseconds as the `"t"` field writes them: seconds with exactly three decimals.
    public static func seconds(milliseconds: Int64) -> String {
        let sign = milliseconds < 0 ? "-" : ""
        let magnitude = milliseconds.magnitude
        let fraction = magnitude % 1000
        let digits = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        return "\(sign)\(magnitude / 1000).\(digits)"
    }
}
