import BluetoothLE
import FitnessSensors
import Foundation
import OpenHealthKit
import TestSupport
import Testing

@testable import BlueZTransport

/// OpenHealthKit's trainer control (``FitnessMachineControl``) through a `BLESensor` over
/// `socketpair(AF_UNIX, SOCK_SEQPACKET)` against the simulated smart trainer: the writes and indications go through
/// the same GATT client that delivers the trainer's readings.
@Suite(.timeLimit(.minutes(1))) struct FitnessMachineControlTests {
    typealias CP = FitnessMachineControlPoint

    /// A trainer, its sensor started, a control started, and both streams of events.
    struct Rig {
        let peripheral: SimulatedPeripheral
        let link: SocketPairLink
        let clock = ManualClock()
        let sensor: BLESensor
        let control: FitnessMachineControl
        let readings = EventRecorder()
        let controlEvents: AsyncStream<FitnessMachineControl.Event>

        init(grantsControl: Bool = true, maximumPower: Int = 2000) async {
            peripheral = SimulatedPeripheral(profile: .smartTrainer(maximumPower: maximumPower))
            await peripheral.setGrantsControl(grantsControl)
            link = SocketPairLink(peripheral)
            sensor = BLESensor(
                identifier: "unix:trainer", name: "Trainer", capabilities: .fitnessMachine, clock: clock,
                wallClock: TestWallClock().now, connect: link.connect)
            control = FitnessMachineControl(sensor: sensor, clock: clock)
            let (events, sink) = AsyncStream.makeStream(of: FitnessMachineControl.Event.self)
            controlEvents = events
            control.start { sink.yield($0) }
            sensor.start(readings.handler)
        }

        func close() {
            control.close()
            sensor.stop()
        }

        /// The trainer's next `count` records; returns the power readings they made.
        func ride(
            _ count: Int, _ events: inout AsyncStream<SensorEvent>.Iterator
        ) async -> [Int] {
            var watts: [Int] = []
            var records = 0
            while records < count {
                clock.advance(by: .milliseconds(500))
                let value = await peripheral.step()
                // A split record's first part (More Data set, flags bit 0 clear) carries no reading on its own.
                if value.first.map({ $0 & 0x01 != 0 }) == true { continue }
                records += 1
                // Each whole record makes a speed, cadence and power reading, then distance and energy as present.
                while let seen = await events.seen() {
                    if case .reading(.power(let power)) = seen {
                        watts.append(power.watts)
                        break
                    }
                }
            }
            return watts
        }
    }

    /// The trainer's Supported Power Range, read at its connection, is in the control's state by the time it hears
    /// `.connected`; a target above it is refused by the trainer as an invalid parameter.
    @Test func theControlHearsTheTrainersSupportedPowerRange() async throws {
        let rig = await Rig(maximumPower: 300)
        defer { rig.close() }
        var controlEvents = rig.controlEvents.makeAsyncIterator()
        #expect(await controlEvents.next() == .connected(offersControl: true))
        #expect(rig.control.state.supportedPowerRange == 0 ... 300)
        await #expect(throws: FitnessMachineControlError.self) { try await rig.control.setTargetPower(350) }
        #expect(rig.control.state.targetPower == nil)
    }

    /// A target within the range each trainer reported: 350 W asked before the trainer connected is asked for as
    /// 300 W once it has (the kept target, clamped by the control), and 320 W asked once connected is held at 300 W
    /// by `TrainerTargets`; the trainer refuses neither.
    /// `TrainerTargets` over a sensor of `peripheral`, started with `target`: the targets, the sensor and their
    /// events.
    static func targets(
        _ peripheral: SimulatedPeripheral, target: Int
    ) -> (TrainerTargets, BLESensor, AsyncStream<TrainerTargets.Event>.Iterator) {
        let link = SocketPairLink(peripheral)
        let clock = ManualClock()
        let sensor = BLESensor(
            identifier: "unix:trainer", name: "Trainer", capabilities: .fitnessMachine, clock: clock,
            wallClock: TestWallClock().now, connect: link.connect)
        let targets = TrainerTargets(sensors: [sensor], clock: clock)
        let (events, sink) = AsyncStream.makeStream(of: TrainerTargets.Event.self)
        targets.start(target: target, events: { sink.yield($0) }, changed: {})
        sensor.start { _ in }
        return (targets, sensor, events.makeAsyncIterator())
    }

    @Test func targetsAreKeptWithinTheTrainersRange() async throws {
        let peripheral = SimulatedPeripheral(profile: .smartTrainer(maximumPower: 300))
        var (targets, sensor, iterator) = Self.targets(peripheral, target: 350)
        defer {
            targets.close()
            sensor.stop()
        }
        #expect(await iterator.next() == .targetSet(sensor: "Trainer", watts: 300))
        #expect(targets.supportedPowerRange == 0 ... 300)
        targets.hold(320)
        #expect(await iterator.next() == .targetSet(sensor: "Trainer", watts: 300))
        let refused = await peripheral.controlRequests.filter { $0.1 != .success }
        #expect(refused.isEmpty, "\(refused)")
    }

    @Test func ergHoldsTheTargetThatTheTrainerFollows() async throws {
        let rig = await Rig()
        defer { rig.close() }
        var controlEvents = rig.controlEvents.makeAsyncIterator()
        #expect(await controlEvents.next() == .connected(offersControl: true))

        // Control is asked for first, then the target; both answered Success.
        try await rig.control.setTargetPower(200)
        #expect(rig.control.state.hasControl)
        #expect(rig.control.state.targetPower == 200)
        #expect(await controlEvents.next() == .accepted(.requestControl))
        #expect(await controlEvents.next() == .accepted(.setTargetPower(200)))
        // The trainer announces the new target on Fitness Machine Status (0x08, 200 = 0x00C8).
        #expect(await controlEvents.next() == .status(FitnessMachineStatus(opCode: 0x08, parameters: [0xC8, 0x00])))

        // It follows from 150 W with a 2 s lag: after 6 s (12 records) 150 + 50 (1 − e^−3) = 197.5 W, ±4 W ripple.
        var readings = rig.readings.events.makeAsyncIterator()
        let watts = await rig.ride(12, &readings)
        #expect(watts.count == 12)
        #expect(abs(Double(watts.last ?? 0) - 197.5) <= 5)
        #expect(watts.first ?? 0 < watts.last ?? 0)

        // Two presses of + in a row, the second asked for before the first is answered: both answers are `80 05 01`,
        // and both reach the control (not dropped as a re-delivered notification; the second's wait would not end).
        // The first is queued without waiting, so the two go in the order pressed (two `async let`s raced: under
        // load the 220 W request was written first).
        rig.control.requestTargetPower(210)
        try await rig.control.setTargetPower(220)
        #expect(rig.control.state.targetPower == 220)
        let session = await rig.peripheral.controlRequests.map { "\($0.0.summary): \($0.1)" }
        #expect(
            session == [
                "request control: success", "set target power to 200 W: success",
                "set target power to 210 W: success", "set target power to 220 W: success",
            ])
    }

    /// `requestTargetPower` asks without waiting: by the time it returns the control awaits the trainer's answer
    /// (Request Control is written, the target queued behind it), and it stops awaiting once the target is taken;
    /// a target no request can carry is one `.failed` event and nothing is written.
    @Test func aTargetAskedForWithoutWaitingAwaitsItsAnswerAtOnce() async throws {
        let rig = await Rig()
        defer { rig.close() }
        var controlEvents = rig.controlEvents.makeAsyncIterator()
        #expect(await controlEvents.next() == .connected(offersControl: true))
        #expect(!rig.control.state.isAwaitingAnswer)
        rig.control.requestTargetPower(190)
        #expect(rig.control.state.isAwaitingAnswer)
        #expect(rig.control.state.requestedTargetPower == 190)
        #expect(await controlEvents.next() == .accepted(.requestControl))
        #expect(await controlEvents.next() == .accepted(.setTargetPower(190)))
        #expect(!rig.control.state.isAwaitingAnswer)
        #expect(rig.control.state.targetPower == 190)
        #expect(await controlEvents.next() == .status(FitnessMachineStatus(opCode: 0x08, parameters: [0xBE, 0x00])))

        rig.control.requestTargetPower(40_000)
        #expect(
            await controlEvents.next()
                == .failed(.init(request: "set target power to 40000 W", reason: .refused(.invalidParameter))))
        #expect(!rig.control.state.isAwaitingAnswer)
        let session = await rig.peripheral.controlRequests.map { "\($0.0.summary): \($0.1)" }
        #expect(session == ["request control: success", "set target power to 190 W: success"])
    }

    @Test func resistanceGradeAndStop() async throws {
        let rig = await Rig()
        defer { rig.close() }
        var controlEvents = rig.controlEvents.makeAsyncIterator()
        #expect(await controlEvents.next() == .connected(offersControl: true))
        try await rig.control.setResistanceLevel(12.5)
        try await rig.control.setSimulatedGrade(4)
        try await rig.control.stop()
        let requests = await rig.peripheral.controlRequests.map(\.0)
        // 12.5 in steps of 0.1 is 125; 4 % in 0.01 % is 400, with Crr 0.004 (40 × 0.0001) and Cw 0.51 kg/m (51 × 0.01).
        #expect(
            requests == [
                .requestControl, .setTargetResistanceLevel(125),
                .setIndoorBikeSimulation(windSpeed: 0, grade: 400, rollingResistance: 40, windResistance: 51),
                .stopOrPause(1),
            ])
        #expect(rig.control.state.targetPower == nil)
        // An out-of-range target is refused by the trainer with its result code, thrown as it is.
        await #expect(
            throws: FitnessMachineControlError(
                request: "set target power to 3000 W", reason: .refused(.invalidParameter))
        ) {
            try await rig.control.setTargetPower(3000)
        }
        #expect(
            rig.control.state.lastError?.description
                == "The machine refused to set target power to 3000 W: invalid parameter.")
    }

    /// The trainer takes control away mid-session (Control Permission Lost, 0xFF: another app took it): the
    /// trainers' event says so, and the next target asks for control again before it is set.
    @Test func controlLostMidSessionIsSaidAndAskedForAgainWithTheNextTarget() async throws {
        let peripheral = SimulatedPeripheral(profile: .smartTrainer())
        var (targets, sensor, iterator) = Self.targets(peripheral, target: 200)
        defer {
            targets.close()
            sensor.stop()
        }
        #expect(await iterator.next() == .targetSet(sensor: "Trainer", watts: 200))
        await peripheral.revokeControl()
        #expect(await iterator.next() == .lostControl(sensor: "Trainer"))
        #expect(targets.controls.first?.state.hasControl == false)
        targets.hold(210)
        #expect(await iterator.next() == .targetSet(sensor: "Trainer", watts: 210))
        let session = await peripheral.controlRequests.map { "\($0.0.summary): \($0.1)" }
        #expect(
            session == [
                "request control: success", "set target power to 200 W: success", "request control: success",
                "set target power to 210 W: success",
            ])
        #expect(
            TrainerTargets.Event.lostControl(sensor: "Trainer").description
                == "Trainer took control back (another app, or its own buttons); the next target asks for it again")
    }

    @Test func aTrainerThatRefusesControlIsStillRecordedFrom() async throws {
        let rig = await Rig(grantsControl: false)
        defer { rig.close() }
        var controlEvents = rig.controlEvents.makeAsyncIterator()
        #expect(await controlEvents.next() == .connected(offersControl: true))
        await #expect(
            throws: FitnessMachineControlError(
                request: "set target power to 200 W", reason: .refused(.controlNotPermitted))
        ) {
            try await rig.control.setTargetPower(200)
        }
        #expect(!rig.control.state.hasControl)
        #expect(
            await controlEvents.next()
                == .failed(.init(request: "request control", reason: .refused(.controlNotPermitted))))
        var readings = rig.readings.events.makeAsyncIterator()
        let watts = await rig.ride(3, &readings)
        #expect(watts.count == 3)
        #expect(rig.sensor.malformedNotifications == 0)
    }

    /// The link drops: the trainer forgets its client; once the sensor reconnects, the target is asked for again.
    @Test func theTargetIsAskedForAgainAfterAReconnection() async throws {
        let rig = await Rig()
        defer { rig.close() }
        var controlEvents = rig.controlEvents.makeAsyncIterator()
        #expect(await controlEvents.next() == .connected(offersControl: true))
        try await rig.control.setTargetPower(230)
        #expect(await controlEvents.next() == .accepted(.requestControl))
        #expect(await controlEvents.next() == .accepted(.setTargetPower(230)))
        #expect(await controlEvents.next() == .status(FitnessMachineStatus(opCode: 0x08, parameters: [0xE6, 0x00])))
        var readings = rig.readings.events.makeAsyncIterator()
        rig.link.dropLatest()
        #expect(await controlEvents.next() == .disconnected)
        #expect(!rig.control.state.hasControl)
        while let seen = await readings.seen(), seen != .disconnected("The sensor closed the link.") {}
        // The first reconnection waits the initial backoff, 250 ms.
        try await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .milliseconds(250))
        #expect(await controlEvents.next() == .connected(offersControl: true))
        #expect(await controlEvents.next() == .accepted(.requestControl))
        #expect(await controlEvents.next() == .accepted(.setTargetPower(230)))
        #expect(rig.link.connectionCount == 2)
        #expect(rig.control.state.hasControl)
    }

    /// A sensor without a control point (a heart-rate strap) says so at once, without writing.
    @Test func aSensorWithoutAControlPoint() async throws {
        let peripheral = SimulatedPeripheral(profile: .heartRateStrap())
        let link = SocketPairLink(peripheral)
        let sensor = BLESensor(
            identifier: "unix:strap", name: "Strap", capabilities: .heartRateStrap, clock: ManualClock(),
            wallClock: TestWallClock().now, connect: link.connect)
        let control = FitnessMachineControl(sensor: sensor, clock: ManualClock())
        let (events, sink) = AsyncStream.makeStream(of: FitnessMachineControl.Event.self)
        control.start { sink.yield($0) }
        sensor.start { _ in }
        defer {
            control.close()
            sensor.stop()
        }
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == .connected(offersControl: false))
        await #expect(
            throws: FitnessMachineControlError(request: "set target power to 200 W", reason: .notControllable)
        ) {
            try await control.setTargetPower(200)
        }
        #expect(await peripheral.controlRequests.isEmpty)
    }

    /// An indication of the control point that answers no request (a machine's bug, or another client's answer):
    /// one error, nothing changes, and the next request is answered as usual.
    @Test func anAnswerToARequestNeverSentIsAnErrorAndChangesNothing() async throws {
        let rig = await Rig()
        defer { rig.close() }
        var controlEvents = rig.controlEvents.makeAsyncIterator()
        #expect(await controlEvents.next() == .connected(offersControl: true))
        let database = GATTDatabase(services: PeripheralProfile.smartTrainer().database)
        let handle = try #require(
            database.characteristic(BluetoothUUID(GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint))?
                .valueHandle)
        // Handle Value Indication (0x1D) of the control point: `80 05 01`, Set Target Power succeeded.
        try await rig.link.sendRaw([0x1D, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x80, 0x05, 0x01])
        #expect(
            await controlEvents.next()
                == .failed(.init(request: "answer a request", reason: .unexpectedResponse(requestOpCode: 0x05))))
        #expect(rig.control.state.targetPower == nil)
        try await rig.control.setTargetPower(180)
        #expect(rig.control.state.targetPower == 180)
    }
}
