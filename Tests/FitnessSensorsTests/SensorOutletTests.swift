import FitnessSensors
import Foundation
import Synchronization
import Testing

/// Every kind of sensor stops the same way, because its events leave through a `SensorOutlet`.
@Suite struct SensorOutletTests {
    final class Received: @unchecked Sendable {
        let lock = NSLock()
        var values: [Int] = []
        func add(_ value: Int) { lock.withLock { values.append(value) } }
    }

    final class Flags: Sendable {
        let finished = Atomic<Bool>(false)
        let finishedWhenStopReturned = Atomic<Bool>(false)
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

    /// `stop()` from another thread returns only once the delivery in progress has ended: the handler is held inside
    /// a delivery while a second thread stops the sensor, and that thread notes whether the handler had finished when
    /// its `stop()` returned. (Were `stop()` not to wait, it would return first whenever the second thread reaches it
    /// before the handler is let go.)
    @Test func stopFromAnotherThreadWaitsForTheDeliveryInProgress() {
        let sensor = ScriptedSensor(identifier: "s", name: "S", capabilities: .heartRateStrap)
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let stopping = DispatchSemaphore(value: 0)
        let stopped = DispatchSemaphore(value: 0)
        let flags = Flags()
        sensor.start { _ in
            entered.signal()
            _ = release.wait(timeout: .now() + 10)
            flags.finished.store(true, ordering: .sequentiallyConsistent)
        }
        Thread.detachNewThread {
            sensor.send(.heartRate(HeartRateReading(bpm: 60)), at: Date())
        }
        #expect(entered.wait(timeout: .now() + 10) == .success)
        Thread.detachNewThread {
            stopping.signal()
            sensor.stop()
            let finished = flags.finished.load(ordering: .sequentiallyConsistent)
            flags.finishedWhenStopReturned.store(finished, ordering: .sequentiallyConsistent)
            stopped.signal()
        }
        #expect(stopping.wait(timeout: .now() + 10) == .success)
        release.signal()
        #expect(stopped.wait(timeout: .now() + 10) == .success)
        let finishedFirst = flags.finishedWhenStopReturned.load(ordering: .sequentiallyConsistent)
        #expect(finishedFirst)
        #expect(!sensor.send(.heartRate(HeartRateReading(bpm: 61)), at: Date()))
    }

    /// A handler may replace itself from inside a delivery; the next event goes to the new handler.
    @Test func aHandlerMayReplaceItselfFromInsideADelivery() {
        let sensor = ScriptedSensor(identifier: "s", name: "S", capabilities: .heartRateStrap)
        let first = Received()
        let second = Received()
        sensor.start { [self] event in
            first.add(bpm(event))
            sensor.start { [self] event in second.add(bpm(event)) }
        }
        #expect(sensor.send(.heartRate(HeartRateReading(bpm: 60)), at: Date()))
        #expect(sensor.send(.heartRate(HeartRateReading(bpm: 61)), at: Date()))
        #expect(first.values == [60])
        #expect(second.values == [61])
    }
}
