import BlueZTransport
import FitnessSensors
import Foundation
import Synchronization
import Testing

@testable import BlueZDBus

/// The sensor `makeBluetoothSensor` returns wraps the one the process's path makes; control of a fitness machine
/// goes to it when it offers control (both paths' sensors do), and is refused with one sentence when it does not.
@Suite(.timeLimit(.minutes(1))) struct BluetoothSensorControlTests {
    /// A sensor that measures but cannot be controlled.
    final class Plain: Sensor {
        let identifier = "ble:C7:3A:10:5E:22:F1/random"
        let name = "Trainer"
        let capabilities: SensorCapabilities = [.power]
        var deviceInformation: DeviceInformation { DeviceInformation() }
        func start(_ handler: @escaping @Sendable (SensorEvent) -> Void) {}
        func stop() {}
    }

    @Test func aWrappedSensorWithoutControlReportsNoControlPointAndRefusesWritesWithOneSentence() async throws {
        let sensor = BluetoothSensor(
            identifier: "ble:C7:3A:10:5E:22:F1/random", name: "Trainer", capabilities: [.power]
        ) {
            _ in Plain()
        }
        let (events, continuation) = AsyncStream.makeStream(of: ControlLinkEvent.self)
        sensor.watchControlLink { continuation.yield($0) }
        await #expect(throws: BlueZError.self) { try await sensor.writeWithResponse([0x00], to: 0x2AD9) }
        sensor.start { _ in }
        defer { sensor.stop() }
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == .connected(controlPoint: false))
        do {
            try await sensor.writeWithResponse([0x00], to: 0x2AD9)
            Issue.record("a write to a sensor that cannot be controlled succeeded")
        } catch let error as BlueZError {
            #expect(error.message == "Trainer cannot be controlled on this path.")
        }
    }
}
