import BluetoothLE
import FitnessSensors
import Foundation
import TestSupport
import Testing

@testable import BlueZTransport

/// Foot pods and fitness machines through the raw transport: a `BLESensor` against the simulated foot pod and
/// smart trainer over `socketpair(AF_UNIX, SOCK_SEQPACKET)`, and a control session with the trainer's control
/// point over the same GATT client.
@Suite(.timeLimit(.minutes(1))) struct FitnessMachinePeripheralTests {
    func makeSensor(_ link: SocketPairLink, clock: ManualClock, capabilities: SensorCapabilities) -> BLESensor {
        BLESensor(
            identifier: "unix:test", name: "Test", capabilities: capabilities, clock: clock,
            wallClock: TestWallClock().now, connect: link.connect)
    }

    @Test func footPodDeliversSpeedStepsStrideAndDistance() async throws {
        let peripheral = SimulatedPeripheral(profile: .footPod())
        let clock = ManualClock()
        let sensor = makeSensor(SocketPairLink(peripheral), clock: clock, capabilities: .footPod)
        let recorder = EventRecorder()
        var events = recorder.events.makeAsyncIterator()
        sensor.start(recorder.handler)
        defer { sensor.stop() }
        #expect(await events.seen() == .connecting)
        #expect(await events.seen() == .connected)
        #expect(await events.seen() == .reading(.battery(BatteryReading(percent: 87))))
        var signal = FootPodSignal()
        var interpreter = SensorReadingInterpreter()
        for second in 1 ... 5 {
            clock.advance(by: .seconds(1))
            let expected = signal.next()
            #expect(await peripheral.step() == expected.encode())
            for reading in interpreter.readings(from: .rscMeasurement(expected), at: Double(second)) {
                #expect(await events.seen() == .reading(reading))
            }
        }
    }

    /// The trainer's tenth record comes in two notifications (More Data): the readings come once, with the second.
    @Test func trainerSplitRecordMakesOneSetOfReadings() async throws {
        let peripheral = SimulatedPeripheral(profile: .smartTrainer())
        let clock = ManualClock()
        let sensor = makeSensor(SocketPairLink(peripheral), clock: clock, capabilities: .fitnessMachine)
        let recorder = EventRecorder()
        var events = recorder.events.makeAsyncIterator()
        sensor.start(recorder.handler)
        defer { sensor.stop() }
        #expect(await events.seen() == .connecting)
        #expect(await events.seen() == .connected)
        #expect(await events.seen() == .reading(.battery(BatteryReading(percent: 87))))
        var signal = SmartTrainerSignal()
        var interpreter = SensorReadingInterpreter()
        var parts = 0
        for step in 1 ... 12 {
            clock.advance(by: .milliseconds(500))
            let expected = signal.next()
            if expected.hasMoreData { parts += 1 }
            #expect(await peripheral.step() == expected.encode())
            for reading in interpreter.readings(from: .indoorBikeData(expected), at: Double(step) * 0.5) {
                #expect(await events.seen() == .reading(reading))
            }
        }
        #expect(parts == 1)
        #expect(sensor.malformedNotifications == 0)
    }

    /// A control session: request control, ERG at 250 W (the trainer's power follows with its lag), a target the
    /// trainer refuses, and a trainer that refuses control altogether.
    @Test func controlSession() async throws {
        let peripheral = SimulatedPeripheral(profile: .smartTrainer())
        let (clientEnd, far) = try SocketBearer.pair()
        Task { await peripheral.serve(far) }
        let client = GATTClient(bearer: clientEnd)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try? await client.run() }
            defer {
                group.cancelAll()
                clientEnd.close()
            }
            var characteristics: [GATTCharacteristic] = []
            for service in try await client.discoverPrimaryServices() {
                characteristics += try await client.discoverCharacteristics(of: service)
            }
            let controlPoint = try #require(characteristics.first { $0.uuid.shortValue == 0x2AD9 })
            try await client.subscribe(to: controlPoint)
            var indications = client.notifications.makeAsyncIterator()
            var controller = FitnessMachineController()
            var step = controller.send(.setTargetPower(250), at: 0)
            var answered: [FitnessMachineControlPoint.Request] = []
            var errors: [String] = []
            while let request = step.write {
                try await client.writeValue(request.encode(), handle: controlPoint.valueHandle)
                let indication = try #require(await indications.next())
                step = controller.received(try FitnessMachineControlPoint.Response(bytes: indication.value), at: 0)
                answered += step.succeeded
                errors += step.errors.map(\.description)
            }
            #expect(answered == [.requestControl, .setTargetPower(250)])
            #expect(controller.targetPower == 250)
            step = controller.send(.setTargetPower(3000), at: 1)
            try await client.writeValue(try #require(step.write).encode(), handle: controlPoint.valueHandle)
            let refusal = try #require(await indications.next())
            step = controller.received(try FitnessMachineControlPoint.Response(bytes: refusal.value), at: 1)
            #expect(
                step.errors.map(\.description) == [
                    "The machine refused to set target power to 3000 W: invalid parameter."
                ])
            #expect(errors.isEmpty)
        }
        let session = await peripheral.controlRequests.map { "\($0.0.summary): \($0.1)" }
        #expect(
            session == [
                "request control: success", "set target power to 250 W: success",
                "set target power to 3000 W: invalid parameter",
            ])
        // The trainer's power closes 63 % of the gap to the target in its lag (2 s = 4 steps of 0.5 s).
        var signal = SmartTrainerSignal()
        signal.targetPower = 250
        for _ in 0 ..< 4 { _ = signal.next() }
        #expect(abs(signal.power - (150 + 100 * (1 - exp(-1.0)))) < 1e-9)
    }

    @Test func aTrainerThatRefusesControl() async throws {
        let peripheral = SimulatedPeripheral(profile: .smartTrainer())
        await peripheral.setGrantsControl(false)
        let (clientEnd, far) = try SocketBearer.pair()
        Task { await peripheral.serve(far) }
        let client = GATTClient(bearer: clientEnd)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try? await client.run() }
            defer {
                group.cancelAll()
                clientEnd.close()
            }
            var characteristics: [GATTCharacteristic] = []
            for service in try await client.discoverPrimaryServices() {
                characteristics += try await client.discoverCharacteristics(of: service)
            }
            let controlPoint = try #require(characteristics.first { $0.uuid.shortValue == 0x2AD9 })
            try await client.subscribe(to: controlPoint)
            var indications = client.notifications.makeAsyncIterator()
            var controller = FitnessMachineController()
            let step = controller.send(.setTargetPower(200), at: 0)
            try await client.writeValue(try #require(step.write).encode(), handle: controlPoint.valueHandle)
            let indication = try #require(await indications.next())
            let refused = controller.received(try FitnessMachineControlPoint.Response(bytes: indication.value), at: 0)
            #expect(
                refused.errors.first?.description == "The machine refused to request control: control not permitted.")
            #expect(refused.write == nil)
        }
    }
}
