import BluetoothLE
import FitnessSensors
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import BlueZTransport

/// Link loss, reconnection, duplicates, silence and malformed input, over real socket pairs.
@Suite(.timeLimit(.minutes(1))) struct BLESensorLinkTests {
    let peripheral = SimulatedPeripheral(profile: .heartRateStrap())
    let clock = ManualClock()

    func start(
        _ link: SocketPairLink, recorder: EventRecorder = EventRecorder()
    ) async -> (BLESensor, AsyncStream<SensorEvent>.Iterator) {
        let sensor = BLESensor(
            identifier: "unix:test", name: "Test", capabilities: .heartRateStrap, clock: clock,
            wallClock: TestWallClock().now, connect: link.connect)
        var events = recorder.events.makeAsyncIterator()
        sensor.start(recorder.handler)
        #expect(await events.seen() == .connecting)
        #expect(await events.seen() == .connected)
        #expect(await events.seen() == .reading(.battery(BatteryReading(percent: 87))))
        return (sensor, events)
    }

    @Test func peripheralThatDropsAndComesBackIsResubscribedOnceWithoutDuplicates() async throws {
        let link = SocketPairLink(peripheral)
        var (sensor, events) = await start(link)
        defer { sensor.stop() }
        var signal = HeartRateSignal()

        clock.advance(by: .seconds(1))
        await peripheral.step()
        #expect(await events.seen() == .reading(.heartRate(HeartRateReading(signal.next()))))

        // The strap goes out of range: the gap is reported, then the sensor backs off on the clock.
        link.dropLatest()
        #expect(await events.seen() == .disconnected("The sensor closed the link."))
        try await clock.waitForSleepers(1)
        #expect(link.connectionCount == 1)
        clock.advance(by: .milliseconds(250))
        #expect(await events.seen() == .connecting)
        #expect(await events.seen() == .connected)
        #expect(await events.seen() == .reading(.battery(BatteryReading(percent: 87))))

        // On re-subscription the strap re-sent its last value; it must not be recorded twice, so
        // the next reading is the next sample.
        clock.advance(by: .seconds(1))
        await peripheral.step()
        #expect(await events.seen() == .reading(.heartRate(HeartRateReading(signal.next()))))
        #expect(link.connectionCount == 2)
        #expect(await peripheral.measurementSubscriptions == [1, 1])
    }

    /// At a reconnection the sensor subscribes before it reads anything (its readings resume after the subscription
    /// alone), and Device Information, read at the first connection before it said it was connected, is not read
    /// again; the battery level is, after the subscription.
    @Test func aReconnectionSubscribesFirstAndDoesNotReadDeviceInformationAgain() async throws {
        let link = SocketPairLink(peripheral)
        var (sensor, events) = await start(link)
        defer { sensor.stop() }
        #expect(sensor.deviceInformation.modelNumber == "Simulated HR strap")
        link.dropLatest()
        #expect(await events.seen() == .disconnected("The sensor closed the link."))
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(250))
        #expect(await events.seen() == .connecting)
        #expect(await events.seen() == .connected)
        #expect(await events.seen() == .reading(.battery(BatteryReading(percent: 87))))

        let database = GATTDatabase(services: PeripheralProfile.heartRateStrap().database)
        func valueHandle(_ uuid: UInt16) -> UInt16? { database.characteristic(BluetoothUUID(uuid))?.valueHandle }
        let information = Set(DeviceInformationField.allCases.compactMap { valueHandle($0.rawValue) })
        let battery = try #require(valueHandle(GATTAssignedNumbers.Characteristic.batteryLevel))
        let cccd = try #require(
            database.characteristic(BluetoothUUID(GATTAssignedNumbers.Characteristic.heartRateMeasurement))?.cccdHandle)
        let requests = await peripheral.requests
        let reads: Set<UInt8> = [ATTOpcode.readRequest.rawValue, ATTOpcode.readBlobRequest.rawValue]
        let write = ATTOpcode.writeRequest.rawValue
        func handles(_ connection: Int, _ opcodes: Set<UInt8>) -> [UInt16] {
            requests.filter { $0.connection == connection && opcodes.contains($0.opcode) }.map(\.handle)
        }
        #expect(!information.isDisjoint(with: handles(0, reads)), "read at the first connection")
        #expect(information.isDisjoint(with: handles(1, reads)), "\(handles(1, reads))")
        let second = requests.filter { $0.connection == 1 }
        let subscribed = try #require(second.firstIndex { $0.opcode == write && $0.handle == cccd })
        let batteryRead = try #require(second.firstIndex { reads.contains($0.opcode) && $0.handle == battery })
        #expect(subscribed < batteryRead)
    }

    @Test func failedConnectionsBackOffExponentially() async throws {
        let attempts = AttemptCounter()
        let sensor = BLESensor(
            identifier: "unix:nowhere", name: "Nowhere", capabilities: .heartRateStrap, clock: clock,
            wallClock: TestWallClock().now
        ) {
            attempts.increment()
            return try SocketBearer.connect(unixPath: "/nonexistent/openhealthkit-test.sock")
        }
        let recorder = EventRecorder()
        var events = recorder.events.makeAsyncIterator()
        sensor.start(recorder.handler)
        defer { sensor.stop() }
        let reason =
            "Nothing listens at unix:/nonexistent/openhealthkit-test.sock; start one with `workout peripheral --listen PATH`."
        for delay in [250, 500, 1000, 2000] {
            #expect(await events.seen() == .connecting)
            #expect(await events.seen() == .disconnected(reason))
            try await clock.waitForSleepers(1)
            // Just short of the delay, nothing happens.
            clock.advance(by: .milliseconds(delay - 1))
            #expect(clock.sleeperCount == 1)
            clock.advance(by: .milliseconds(1))
        }
        #expect(await events.seen() == .connecting)
        #expect(attempts.value == 5)
    }

    @Test func silentSensorIsReportedStaleWithinThreeSecondsAndLiveAgainOnData() async throws {
        let link = SocketPairLink(peripheral)
        let recorder = EventRecorder()
        var (sensor, events) = await start(link, recorder: recorder)
        defer { sensor.stop() }
        var signal = HeartRateSignal()
        clock.advance(by: .seconds(1))
        await peripheral.step()
        #expect(await events.seen() == .reading(.heartRate(HeartRateReading(signal.next()))))

        // The watchdog wakes at 3 s (3 s after connecting), sees data at 1 s, and sleeps until 4 s.
        clock.advance(by: .milliseconds(2999))
        try await clock.waitForSleepers(1)
        #expect(recorder.delivered.count == 4, "not stale before 3 s of silence: \(recorder.delivered)")
        clock.advance(by: .milliseconds(1))
        #expect(await events.seen() == .disconnected("No data from the sensor for 3 seconds."))

        clock.advance(by: .seconds(1))
        await peripheral.step()
        #expect(await events.seen() == .connected)
        #expect(await events.seen() == .reading(.heartRate(HeartRateReading(signal.next()))))
    }

    @Test func malformedPDUsAndPayloadsAreSkipped() async throws {
        let link = SocketPairLink(peripheral)
        var (sensor, events) = await start(link)
        defer { sensor.stop() }
        // A notification PDU cut short, then a Heart Rate Measurement whose uint16 value is missing,
        // then one with an odd RR byte.
        try await link.sendRaw([0x1B, 0x03])
        await peripheral.publish([0x01, 0x3C], of: BluetoothUUID(0x2A37))
        await peripheral.publish([0x10, 0x3C, 0x00, 0x04, 0x01], of: BluetoothUUID(0x2A37))
        clock.advance(by: .seconds(1))
        await peripheral.step()
        var signal = HeartRateSignal()
        #expect(await events.seen() == .reading(.heartRate(HeartRateReading(signal.next()))))
    }
}

final class AttemptCounter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
