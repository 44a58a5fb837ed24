import FitnessSensors
import Foundation
import HealthKitModel
import Synchronization
import WorkoutEngine

/// Keeps one sensor's ``HKSensorStatus`` as its events pass on their way to the builder.
///
/// A reading takes no lock: skin contact and battery are atomics, and only a change of them or a connection event
/// (rare) takes the mutex.
final class SensorStatusTracker: Sendable {
    fileprivate struct State {
        var connection: HKSensorStatus.Connection = .connecting(attempt: 0)
        var problem: String?
        var dropouts = 0
        var closedDropoutTime: TimeInterval = 0
    }

    let sensor: any Sensor
    private let state = Mutex(State())
    /// 0 unknown, 1 contact, 2 no contact.
    private let contact = Atomic<UInt8>(0)
    /// -1 unknown, else percent.
    private let battery = Atomic<Int>(-1)
    /// The first level reported: -1 until then.
    private let firstBattery = Atomic<Int>(-1)
    /// Whether a reading arrived since the last connection event: a sensor that never reports its connection (a
    /// scripted one, a fixture recorded without connection events) is connected once it delivers.
    private let delivering = Atomic<Bool>(false)
    /// Whether any reading ever arrived.
    private let delivered = Atomic<Bool>(false)

    init(sensor: any Sensor) {
        self.sensor = sensor
    }

    func observe(_ event: SensorEvent) {
        if case .reading = event.kind, !delivering.load(ordering: .relaxed) {
            delivering.store(true, ordering: .relaxed)
            if !delivered.load(ordering: .relaxed) { delivered.store(true, ordering: .relaxed) }
        }
        switch event.kind {
        case .reading(.heartRate(let reading)):
            let value: UInt8
            switch reading.contact {
            case .detected: value = 1
            case .notDetected: value = 2
            default: return
            }
            if contact.load(ordering: .relaxed) != value { contact.store(value, ordering: .relaxed) }
        case .reading(.battery(let reading)):
            battery.store(reading.percent, ordering: .relaxed)
            if firstBattery.load(ordering: .relaxed) < 0 {
                _ = firstBattery.compareExchange(expected: -1, desired: reading.percent, ordering: .relaxed)
            }
        case .reading:
            return
        case .connection(let connection):
            state.withLock {
                // A sensor that delivered without saying it connected was connected.
                if case .connecting = $0.connection, delivering.load(ordering: .relaxed) { $0.connection = .connected }
                $0.apply(connection, at: event.timestamp)
                delivering.store(false, ordering: .relaxed)
            }
        }
    }

    var hasDelivered: Bool { delivered.load(ordering: .relaxed) }

    /// The sensor as a finished workout keeps it: its device (Device Information as known now) and battery levels.
    var workoutSensor: HKWorkoutSensor {
        let first = firstBattery.load(ordering: .relaxed), last = battery.load(ordering: .relaxed)
        return HKWorkoutSensor(
            device: HKDevice(sensor: sensor), batteryPercentAtStart: first < 0 ? nil : first,
            batteryPercentAtEnd: last < 0 ? nil : last)
    }

    var status: HKSensorStatus {
        let (connection, dropouts, closed, problem) = state.withLock {
            ($0.connection, $0.dropouts, $0.closedDropoutTime, $0.problem)
        }
        let contact = contact.load(ordering: .relaxed)
        let battery = battery.load(ordering: .relaxed)
        var shown = connection
        if case .connecting(let attempt) = connection {
            shown = delivering.load(ordering: .relaxed) ? .connected : .connecting(attempt: max(attempt, 1))
        }
        return HKSensorStatus(
            identifier: sensor.identifier, name: sensor.name, capabilities: sensor.capabilities, connection: shown,
            batteryPercent: battery < 0 ? nil : battery, skinContact: contact == 0 ? nil : contact == 1,
            dropouts: dropouts, malformedNotifications: sensor.malformedNotifications, problem: problem,
            closedDropoutTime: closed)
    }
}

extension SensorStatusTracker.State {
    fileprivate mutating func apply(_ change: SensorConnectionState, at date: Date) {
        if case .disconnected(let reason?) = change { problem = reason }
        switch (change, connection) {
        case (.connecting, .connecting(let attempt)):
            connection = .connecting(attempt: attempt + 1)
        case (.connecting, .lost(let since, _)):
            connection = .reconnecting(since: since, attempt: 1)
        case (.connecting, .reconnecting(let since, let attempt)):
            connection = .reconnecting(since: since, attempt: attempt + 1)
        case (.connecting, .connected):
            // A new link without a reported loss: count the loss now.
            dropouts += 1
            connection = .reconnecting(since: date, attempt: 1)
        case (.connected, .lost(let since, _)), (.connected, .reconnecting(let since, _)):
            closedDropoutTime += max(0, date.timeIntervalSince(since))
            connection = .connected
        case (.connected, _):
            connection = .connected
        case (.disconnected(let reason), .connected):
            dropouts += 1
            connection = .lost(since: date, reason: reason)
        case (.disconnected, .reconnecting):
            // That attempt failed; the next one counts on (the reason is kept as the problem).
            break
        case (.disconnected(let reason), .lost(let since, _)):
            connection = .lost(since: since, reason: reason)
        case (.disconnected, .connecting):
            // Never connected yet: still connecting; the failure's reason is kept, it is not a dropout.
            break
        }
    }
}
