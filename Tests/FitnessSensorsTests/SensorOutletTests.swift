import FitnessSensors
import Foundation
import Testing

/// Every kind of sensor stops the same way, because its events leave through a `SensorOutlet`.
@Suite struct SensorOutletTests {
    final class Received: @unchecked Sendable {
        let lock = NSLock()
        var values: [Int] = []
        func add(_ value: Int) { lock.withLock { values.append(value) } }
    }

    func bpm(_ event: SensorEvent) -> Int {
        if case .reading(.heartRate(let reading)) = event.kind { return reading.bpm }
        return -1
    }

    /// A fixture sensor decodes bytes through the same path as a live one, and drops what comes after `stop()`.
    @Test func aFixtureSensorDeliversNothingAfterStop() throws {
        let header = FixtureHeader.SensorDescription(
            id: "strap", name: "Strap", services: ["180D"], capabilities: ["heartRate"])
        let sensor = FixtureSensor(header, origin: Date(timeIntervalSinceReferenceDate: 0))
        let received = Received()
        sensor.start { [self] event in received.add(bpm(event)) }
        // Heart Rate Measurement: flags 0x00 (UINT8 rate), 72 bpm (HRS 1.0 §3.1.1.1).
        #expect(sensor.deliver([0x00, 72], characteristic: 0x2A37, at: Date(timeIntervalSinceReferenceDate: 1)) == 1)
        sensor.stop()
        #expect(sensor.deliver([0x00, 73], characteristic: 0x2A37, at: Date(timeIntervalSinceReferenceDate: 2)) == 0)
        #expect(received.values == [72])
        // A value that does not decode is counted and skipped: flags say UINT16, one byte follows.
        #expect(sensor.deliver([0x01, 72], characteristic: 0x2A37, at: Date(timeIntervalSinceReferenceDate: 3)) == 0)
        #expect(sensor.malformedNotifications == 1)
    }

    /// A handler may stop its sensor from inside a delivery; nothing is delivered after.
    @Test func aHandlerMayStopItsSensorFromInsideADelivery() {
        let sensor = ScriptedSensor(identifier: "s", name: "S", capabilities: .heartRateStrap)
        let received = Received()
        sensor.start { [self] event in
            received.add(bpm(event))
            sensor.stop()
        }
        #expect(sensor.send(.heartRate(HeartRateReading(bpm: 60)), at: Date()))
        #expect(!sensor.send(.heartRate(HeartRateReading(bpm: 61)), at: Date()))
        #expect(received.values == [60])
    }
}
