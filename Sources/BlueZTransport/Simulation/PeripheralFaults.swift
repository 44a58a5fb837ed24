import BluetoothLE
import FitnessSensors
import Foundation

/// Faults a simulated peripheral can be told to have, so a recording's handling of them can be tested and shown:
/// dropouts (it stops notifying and drops every link, refusing new ones, for a while), a battery level, spells
/// without skin contact (a strap's Heart Rate Measurement reports contact supported but not detected), and every
/// Nth notification malformed (cut to its first byte, which no measurement decodes from).
///
/// Pure: times are seconds since the peripheral started, given by the caller.
public struct PeripheralFaults: Sendable, Equatable {
    /// A span of the peripheral's time, `[at, at + seconds)`.
    public struct Window: Sendable, Equatable {
        public var at: Double
        public var seconds: Double

        public init(at: Double, seconds: Double) {
            self.at = at
            self.seconds = seconds
        }

        /// Parses `AT:SECONDS` (both non-negative numbers of seconds, SECONDS above 0).
        public init?(parsing text: String) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let at = Double(parts[0]), let seconds = Double(parts[1]),
                at.isFinite, seconds.isFinite, at >= 0, seconds > 0
            else { return nil }
            self.init(at: at, seconds: seconds)
        }

        public func contains(_ time: Double) -> Bool { time >= at && time < at + seconds }
    }

    public var dropouts: [Window] = []
    public var noContact: [Window] = []
    /// The battery level the peripheral reports (0–100), or its profile's default.
    public var batteryPercent: UInt8?
    /// Every this many notifications, one is malformed.
    public var malformedEvery: Int?

    public init() {}

    /// The profile with the battery level set (the Battery Level characteristic's value, read at connection).
    public func applied(to profile: PeripheralProfile) -> PeripheralProfile {
        guard let percent = batteryPercent else { return profile }
        var profile = profile
        let battery = BluetoothUUID(GATTAssignedNumbers.Characteristic.batteryLevel)
        for service in profile.services.indices {
            for characteristic in profile.services[service].characteristics.indices
            where profile.services[service].characteristics[characteristic].uuid == battery {
                profile.services[service].characteristics[characteristic].value = [percent]
            }
        }
        return profile
    }

    /// Whether the peripheral is in a dropout at `time`: silent, links dropped, connections refused.
    public func isDroppedOut(at time: Double) -> Bool { dropouts.contains { $0.contains(time) } }

    /// The bytes to notify for the `number`-th measurement (from 1) at `time`: malformed when `number` is a multiple
    /// of ``malformedEvery``; for a Heart Rate Measurement in a no-contact spell, the contact-detected flag cleared
    /// (flags bit 1; bit 2, contact supported, stays set: Bluetooth HRS 1.0 §3.1.1.1).
    public func apply(to bytes: [UInt8], heartRate: Bool, number: Int, at time: Double) -> [UInt8] {
        guard !bytes.isEmpty else { return bytes }
        if let every = malformedEvery, every > 0, number % every == 0 { return [bytes[0]] }
        var bytes = bytes
        if heartRate, noContact.contains(where: { $0.contains(time) }) {
            bytes[0] = (bytes[0] & ~0x02) | 0x04
        }
        return bytes
    }
}
