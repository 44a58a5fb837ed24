import Foundation

/// Hears the raw bytes a sensor receives, before decoding, and its connection changes: the seam a fixture
/// recorder hooks into a live sensor.
///
/// A sensor calls its tap from its own delivery context, in arrival order, with the wall-clock time the bytes
/// arrived. Notifications it drops as duplicates are not passed on.
public protocol NotificationTap: Sendable {
    /// Bytes of `characteristic` arrived from the sensor `identifier` (a notification, or a value read at connection).
    func sensor(_ identifier: String, received bytes: [UInt8], characteristic: UInt16, at date: Date)
    /// The sensor's link changed.
    func sensor(_ identifier: String, changedTo state: SensorConnectionState, at date: Date)
}
