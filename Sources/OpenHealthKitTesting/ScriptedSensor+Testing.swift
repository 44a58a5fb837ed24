import FitnessSensors
import Foundation

extension ScriptedSensor {
    /// Sends a heart rate (with skin contact, and RR intervals when given) stamped `date`. OpenHealthKitTesting.
    @discardableResult
    public func send(heartRate bpm: Int, rrIntervals: [Double] = [], at date: Date) -> Bool {
        send(.heartRate(HeartRateReading(bpm: bpm, rrIntervals: rrIntervals, contact: .detected)), at: date)
    }

    /// Sends a power reading stamped `date`. OpenHealthKitTesting.
    @discardableResult
    public func send(power watts: Int, at date: Date) -> Bool {
        send(.power(PowerReading(watts: watts)), at: date)
    }

    /// The link drops at `date`: the data source forgets the sensor's continuity (no energy or distance is bridged,
    /// its next heartbeat follows a gap) and the next sensor takes over what it measured. OpenHealthKitTesting.
    @discardableResult
    public func drop(at date: Date, reason: String = "The sensor went out of range.") -> Bool {
        send(.connection(.disconnected(reason: reason), at: date))
    }

    /// The link is back at `date`. OpenHealthKitTesting.
    @discardableResult
    public func reconnect(at date: Date) -> Bool {
        send(.connection(.connected, at: date))
    }
}
