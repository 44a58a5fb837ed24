import ByteCoding
import FitnessSensors
import Testing

@Suite("Foot pod and fitness machine readings")
struct FitnessMachineInterpretationTests {
    @Test func footPodReadings() throws {
        var interpreter = SensorReadingInterpreter()
        let first = try interpreter.readings(fromValue: hex("07 00 03 AC 69 00 39 30 00 00"), of: 0x2A53, at: 0)
        #expect(first.contains(.speed(SpeedReading(metresPerSecond: 3))))
        #expect(first.contains(.stepCadence(StepCadenceReading(stepsPerMinute: 172))))
        #expect(first.contains(.strideLength(StrideLengthReading(metres: 1.05))))
        #expect(first.contains(.distance(DistanceReading(metres: 0, totalMetres: 0))))
        // 30 dm later: 3 m.
        let second = try interpreter.readings(fromValue: hex("07 00 03 AC 69 00 57 30 00 00"), of: 0x2A53, at: 1)
        #expect(second.contains(.distance(DistanceReading(metres: 3, totalMetres: 3))))
    }

    /// A pod without total distance: speed × time since its previous measurement.
    @Test func footPodWithoutTotalDistanceIntegratesSpeed() throws {
        var interpreter = SensorReadingInterpreter()
        _ = try interpreter.readings(fromValue: hex("04 00 03 AC"), of: 0x2A53, at: 10)
        let readings = try interpreter.readings(fromValue: hex("04 00 03 AC"), of: 0x2A53, at: 11)
        #expect(readings.contains(.distance(DistanceReading(metres: 3, totalMetres: 3))))
    }

    /// A record split over two notifications makes its readings once, when its last part arrives.
    @Test func moreDataIsJoined() throws {
        var interpreter = SensorReadingInterpreter()
        // Part 1: More Data, cadence 90 rpm and power 200 W.
        #expect(try interpreter.readings(fromValue: hex("45 00 B4 00 C8 00"), of: 0x2AD2, at: 0).isEmpty)
        // Part 2: speed 30 km/h, total distance 100 m.
        let readings = try interpreter.readings(fromValue: hex("10 00 B8 0B 64 00 00"), of: 0x2AD2, at: 0.05)
        #expect(readings.contains(.power(PowerReading(watts: 200, source: .fitnessMachine))))
        #expect(readings.contains(.cadence(CadenceReading(rpm: 90))))
        #expect(
            readings.contains { if case .speed(let s) = $0 { abs(s.metresPerSecond - 30 / 3.6) < 1e-9 } else { false } }
        )
    }

    /// More Data that never ends: the record is dropped with one error, and the next record is read.
    @Test func endlessMoreDataIsDroppedWithAnError() throws {
        var interpreter = SensorReadingInterpreter()
        var errors: [DecodeError] = []
        for i in 0 ..< 20 {
            do { _ = try interpreter.readings(fromValue: hex("41 00 C8 00"), of: 0x2AD2, at: Double(i) * 0.1) } catch {
                errors.append(error)
            }
        }
        #expect(errors.count == 2)
        #expect(errors.first?.reason == "More Data never ended (8 parts without a last one); record dropped")
        let readings = try interpreter.readings(fromValue: hex("40 00 B8 0B FA 00"), of: 0x2AD2, at: 3)
        #expect(readings.contains(.power(PowerReading(watts: 250, source: .fitnessMachine))))
    }

    /// A treadmill's incline comes before its speed, whose sample carries it.
    @Test func treadmillIncline() throws {
        var interpreter = SensorReadingInterpreter()
        let readings = try interpreter.readings(fromValue: hex("08 00 E8 03 32 00 1D 00"), of: 0x2ACD, at: 0)
        #expect(readings.first == .incline(InclineReading(percent: 5)))
        #expect(readings.count == 2)
    }

    @Test func rowerSpeedAndDistance() throws {
        var interpreter = SensorReadingInterpreter()
        _ = try interpreter.readings(fromValue: hex("2C 00 38 2A 00 D0 07 00 64 00 96 00"), of: 0x2AD1, at: 0)
        let readings = try interpreter.readings(
            fromValue: hex("2C 00 38 2B 00 D5 07 00 64 00 96 00"), of: 0x2AD1, at: 1)
        #expect(readings.contains(.speed(SpeedReading(metresPerSecond: 5))))
        #expect(readings.contains(.distance(DistanceReading(metres: 5, totalMetres: 5))))
        #expect(readings.contains(.power(PowerReading(watts: 150, source: .fitnessMachine))))
    }

    /// A range with min above max, a status cut short: one error each, and the recording's readings go on.
    @Test func badMachineValuesAreErrorsNotCrashes() throws {
        var interpreter = SensorReadingInterpreter()
        #expect(throws: DecodeError.self) {
            try interpreter.readings(fromValue: hex("D0 07 00 00 01 00"), of: 0x2AD8, at: 0)
        }
        #expect(throws: DecodeError.self) { try interpreter.readings(fromValue: hex("08"), of: 0x2ADA, at: 0) }
        #expect(throws: DecodeError.self) { try interpreter.readings(fromValue: hex("02"), of: 0x2AD2, at: 0) }
        #expect(try interpreter.readings(fromValue: hex("40 00 B8 0B FA 00"), of: 0x2AD2, at: 1).count == 2)
    }
}

@Suite("Fitness machine control")
struct FitnessMachineControllerTests {
    typealias CP = FitnessMachineControlPoint

    @Test func targetPowerAsksForControlFirst() {
        var controller = FitnessMachineController()
        #expect(controller.send(.setTargetPower(200), at: 0).write == .requestControl)
        let granted = controller.received(CP.Response(requestOpCode: 0x00, result: .success), at: 0.1)
        #expect(granted.succeeded == [.requestControl])
        #expect(granted.write == .setTargetPower(200))
        let set = controller.received(CP.Response(requestOpCode: 0x05, result: .success), at: 0.2)
        #expect(set.succeeded == [.setTargetPower(200)])
        #expect(controller.targetPower == 200)
        #expect(controller.hasControl)
    }

    /// A trainer that refuses control: the error says so, and the queued target is dropped with it.
    @Test func refusedControl() {
        var controller = FitnessMachineController()
        _ = controller.send(.setTargetPower(200), at: 0)
        let refused = controller.received(CP.Response(requestOpCode: 0x00, result: .controlNotPermitted), at: 0.1)
        #expect(refused.write == nil)
        #expect(
            refused.errors.map(\.description) == [
                "The machine refused to request control: control not permitted.",
                "The machine refused to set target power to 200 W: control not permitted.",
            ])
        #expect(!controller.hasControl)
    }

    /// An indication for a request never sent: one error, nothing changes.
    @Test func unexpectedIndication() {
        var controller = FitnessMachineController()
        let step = controller.received(CP.Response(requestOpCode: 0x05, result: .success), at: 0)
        #expect(step.errors.map(\.reason) == [.unexpectedResponse(requestOpCode: 0x05)])
        #expect(controller.targetPower == nil)
    }

    @Test func timeoutAndNewerTargetReplacesQueued() {
        var controller = FitnessMachineController()
        _ = controller.send(.setTargetPower(200), at: 0)
        #expect(controller.send(.setTargetPower(210), at: 0.1).superseded == [.setTargetPower(200)])
        #expect(controller.send(.setTargetPower(220), at: 0.2).superseded == [.setTargetPower(210)])
        #expect(controller.tick(at: 10).errors.isEmpty)
        let timedOut = controller.tick(at: 30)
        // Request Control went unanswered: it and the target queued behind it fail, each saying so.
        #expect(
            timedOut.errors.map(\.description) == [
                "The machine did not answer the request to request control.",
                "The machine did not answer the request to set target power to 220 W.",
            ])
        #expect(timedOut.write == nil)
        #expect(controller.send(.setTargetPower(230), at: 31).write == .requestControl)
        _ = controller.received(CP.Response(requestOpCode: 0x00, result: .success), at: 31.1)
        #expect(controller.pending == .setTargetPower(230))
    }

    /// The transport could not write the request: it fails with the transport's sentence; the next one goes out.
    @Test func aFailedWriteDropsTheRequest() {
        var controller = FitnessMachineController()
        _ = controller.send(.requestControl, at: 0)
        #expect(controller.send(.reset, at: 0.1).write == nil)
        let failed = controller.writeFailed(.writeFailed("Trainer is not connected."), at: 0.2)
        #expect(
            failed.errors.map(\.description) == [
                "The request to request control could not be sent: Trainer is not connected.",
                "The request to reset could not be sent: Trainer is not connected.",
            ])
        // The reset queued behind Request Control needed control, so it went with it.
        #expect(failed.write == nil)
        #expect(controller.pending == nil)
        #expect(controller.writeFailed(.noResponse, at: 0.3).errors.isEmpty)
    }
}
