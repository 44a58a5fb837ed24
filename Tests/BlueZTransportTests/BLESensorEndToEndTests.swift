import BluetoothLE
import FitnessSensors
import Foundation
import TestSupport
import Testing

@testable import BlueZTransport

/// A `BLESensor` against a simulated peripheral over `socketpair(AF_UNIX, SOCK_SEQPACKET)`: the same
/// ATT bytes a strap or power meter sends, through the real sockets, GATT client, decoders and
/// interpreter. Time moves only when a test advances the manual clock.
@Suite(.timeLimit(.minutes(1))) struct BLESensorEndToEndTests {
    func makeSensor(
        _ link: SocketPairLink, clock: ManualClock, capabilities: SensorCapabilities = .heartRateStrap
    ) -> BLESensor {
        BLESensor(
            identifier: "unix:test", name: "Test", capabilities: capabilities, clock: clock,
            wallClock: TestWallClock().now, connect: link.connect)
    }

    @Test func strapDeliversHeartRateAndRRIntervals() async throws {
        let peripheral = SimulatedPeripheral(profile: .heartRateStrap())
        let link = SocketPairLink(peripheral)
        let clock = ManualClock()
        let sensor = makeSensor(link, clock: clock)
        let recorder = EventRecorder()
        var events = recorder.events.makeAsyncIterator()
        sensor.start(recorder.handler)
        defer { sensor.stop() }

        #expect(await events.seen() == .connecting)
        #expect(await events.seen() == .connected)
        #expect(await events.seen() == .reading(.battery(BatteryReading(percent: 87))))
        #expect(sensor.deviceInformation.manufacturerName == "OpenHealthKit")
        #expect(sensor.deviceInformation.modelNumber == "Simulated HR strap")

        var signal = HeartRateSignal()
        for _ in 0 ..< 5 {
            clock.advance(by: .seconds(1))
            let sent = await peripheral.step()
            let expected = signal.next()
            #expect(sent == expected.encode())
            #expect(await events.seen() == .reading(.heartRate(HeartRateReading(expected))))
        }
        let subscriptions = await peripheral.measurementSubscriptions
        #expect(subscriptions == [1])
    }

    @Test func powerMeterDeliversPowerCadenceAndSpeedAcrossCounterWraps() async throws {
        let peripheral = SimulatedPeripheral(profile: .powerMeter())
        let link = SocketPairLink(peripheral)
        let clock = ManualClock()
        let sensor = makeSensor(link, clock: clock, capabilities: .powerMeter)
        let recorder = EventRecorder()
        var events = recorder.events.makeAsyncIterator()
        sensor.start(recorder.handler)
        defer { sensor.stop() }
        #expect(await events.seen() == .connecting)
        #expect(await events.seen() == .connected)
        #expect(await events.seen() == .reading(.battery(BatteryReading(percent: 87))))

        // The sensor's arrival times are the manual clock's: 0.25 s per notification from 0.
        var signal = CyclingPowerSignal()
        var interpreter = SensorReadingInterpreter()
        var cadences: [Double] = []
        var speeds: [Double] = []
        var crankWraps = 0
        var wheelWraps = 0
        var previous: CyclingPowerMeasurement?
        for step in 1 ... 40 {
            clock.advance(by: .milliseconds(250))
            let expected = signal.next()
            #expect(await peripheral.step() == expected.encode())
            for reading in interpreter.readings(from: .cyclingPowerMeasurement(expected), at: Double(step) * 0.25) {
                #expect(await events.seen() == .reading(reading))
                if case .cadence(let cadence) = reading { cadences.append(cadence.rpm) }
                if case .speed(let speed) = reading { speeds.append(speed.metresPerSecond) }
            }
            if let before = previous?.crankRevolutions, let crank = expected.crankRevolutions,
                crank.cumulativeRevolutions < before.cumulativeRevolutions || crank.lastEventTime < before.lastEventTime
            {
                crankWraps += 1
            }
            if let before = previous?.wheelRevolutions, let wheel = expected.wheelRevolutions,
                wheel.cumulativeRevolutions < before.cumulativeRevolutions || wheel.lastEventTime < before.lastEventTime
            {
                wheelWraps += 1
            }
            previous = expected
        }
        #expect(crankWraps >= 2 && wheelWraps >= 2, "the simulated counters wrap within 10 s")
        #expect(cadences.count > 20 && speeds.count > 20)
        #expect(cadences.allSatisfy { (84 ... 96).contains($0) }, "\(cadences)")
        #expect(speeds.allSatisfy { (8.3 ... 9.7).contains($0) }, "\(speeds)")
    }
}
