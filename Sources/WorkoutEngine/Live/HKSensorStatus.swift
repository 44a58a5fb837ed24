import FitnessSensors
import Foundation
import HealthKitModel

/// What a live data source knows about one of its sensors: its connection in words, battery, skin contact, and the
/// dropouts it has had. Read it with ``HKLiveWorkoutDataSource/sensorStatuses``.
///
/// Built from the `SensorEvent`s the sensor sends the data source, nothing else: `.connecting`, `.connected` and
/// `.disconnected` events, battery readings, and the skin-contact bit of heart-rate readings. A dropout is a
/// `.disconnected` event after the sensor had connected (a lost link, or 3 s without data); the time without data
/// runs from it to the next `.connected`.
///
/// OpenHealthKit extension: HealthKit keeps paired sensors out of an app's sight (Settings shows them). An app on
/// Linux has no Settings to look at, so the data source tells it.
public struct HKSensorStatus: Sendable, Hashable {
    /// The connection, as a person would say it.
    public enum Connection: Sendable, Hashable {
        /// Connecting for the first time; `attempt` counts from 1.
        case connecting(attempt: Int)
        case connected
        /// Connected before, now without data since `since` (the link dropped, or the sensor went silent).
        case lost(since: Date, reason: String?)
        /// Lost at `since`, and trying to connect again: `attempt` counts from 1.
        case reconnecting(since: Date, attempt: Int)
    }

    /// The sensor's identifier (`ble:…`, `unix:…`, `fixture:…`).
    public var identifier: String
    /// Its name for people.
    public var name: String
    /// What it measures.
    public var capabilities: SensorCapabilities
    public var connection: Connection
    /// The last battery level it reported, in percent.
    public var batteryPercent: Int?
    /// For a strap that reports skin contact: whether its last reading had it. Nil for other sensors.
    public var skinContact: Bool?
    /// How many times it was lost after having connected.
    public var dropouts: Int
    /// Notifications it could not decode, counted and skipped.
    public var malformedNotifications: Int
    /// Why the last connection attempt or link failed, as the sensor said it (one sentence), if it did.
    public var problem: String?
    /// Time without data over its dropouts, the current one counted up to `now`.
    public func timeWithoutData(at now: Date) -> TimeInterval {
        switch connection {
        case .lost(let since, _), .reconnecting(let since, _):
            return closedDropoutTime + max(0, now.timeIntervalSince(since))
        default: return closedDropoutTime
        }
    }

    /// Time without data in dropouts that have ended.
    public var closedDropoutTime: TimeInterval

    package init(
        identifier: String, name: String, capabilities: SensorCapabilities, connection: Connection,
        batteryPercent: Int?, skinContact: Bool?, dropouts: Int, malformedNotifications: Int, problem: String?,
        closedDropoutTime: TimeInterval
    ) {
        self.identifier = identifier
        self.name = name
        self.capabilities = capabilities
        self.connection = connection
        self.batteryPercent = batteryPercent
        self.skinContact = skinContact
        self.dropouts = dropouts
        self.malformedNotifications = malformedNotifications
        self.problem = problem
        self.closedDropoutTime = closedDropoutTime
    }
}
