import FitnessSensors
import Testing

@Suite("SensorReadingInterpreter")
struct SensorReadingInterpreterTests {
    @Test func powerMeterYieldsPowerThenCadence() throws {
        // Assioma Uno notifications from doudar/SmartSpin2k test/test_CyclePowerData.cpp.
        var interpreter = SensorReadingInterpreter()
        let t0 = try SensorPayload.decode(characteristic: 0x2A63, bytes: hex("20 00 00 00 01 00 00 0b"))
        let t3 = try SensorPayload.decode(characteristic: 0x2A63, bytes: hex("20 00 2d 00 02 00 b8 12"))
        #expect(interpreter.readings(from: t0, at: 0) == [.power(PowerReading(watts: 0))])
        let readings = interpreter.readings(from: t3, at: 2)
        #expect(readings.count == 2)
        #expect(readings.first == .power(PowerReading(watts: 45)))
        guard case .cadence(let cadence)? = readings.last else {
            Issue.record("expected a cadence reading, got \(readings)")
            return
        }
        #expect(approximatelyEqual(cadence.rpm, 31.09312, tolerance: 1e-4))
    }

    @Test func speedAndCadenceSensorYieldsCadenceSpeedAndDistance() throws {
        var interpreter = SensorReadingInterpreter(wheelCircumference: 2)
        let first = SensorPayload.cscMeasurement(
            CSCMeasurement(
                wheelRevolutions: .init(cumulativeRevolutions: 10, lastEventTime: 0),
                crankRevolutions: .init(cumulativeRevolutions: 3, lastEventTime: 0)))
        let second = SensorPayload.cscMeasurement(
            CSCMeasurement(
                wheelRevolutions: .init(cumulativeRevolutions: 15, lastEventTime: 1024),
                crankRevolutions: .init(cumulativeRevolutions: 4, lastEventTime: 1024)))
        #expect(interpreter.readings(from: first, at: 0).isEmpty)
        #expect(
            interpreter.readings(from: second, at: 1) == [
                .cadence(CadenceReading(rpm: 60)),
                .speed(SpeedReading(metresPerSecond: 10)),
                .distance(DistanceReading(metres: 10, totalMetres: 10)),
            ])
        // A repeat: cadence and speed hold, no new distance.
        #expect(
            interpreter.readings(from: second, at: 2) == [
                .cadence(CadenceReading(rpm: 60)),
                .speed(SpeedReading(metresPerSecond: 10)),
            ])
    }

    @Test func heartRateBatteryAndTheRest() throws {
        var interpreter = SensorReadingInterpreter()
        let hr = try SensorPayload.decode(characteristic: 0x2A37, bytes: hex("16 4D 16 03"))
        #expect(
            interpreter.readings(from: hr, at: 0)
                == [.heartRate(HeartRateReading(bpm: 77, rrIntervals: [790.0 / 1024], contact: .detected))])
        #expect(
            interpreter.readings(from: .batteryLevel(BatteryLevel(percent: 64)!), at: 0) == [
                .battery(BatteryReading(percent: 64))
            ])
        #expect(interpreter.readings(from: .bodySensorLocation(.chest), at: 0).isEmpty)
        #expect(interpreter.readings(from: .cyclingPowerFeature([]), at: 0).isEmpty)
        #expect(interpreter.readings(from: .unrecognized(characteristic: 0x2A5D, bytes: [1]), at: 0).isEmpty)
    }

    @Test func resetRebaselinesCounters() {
        var interpreter = SensorReadingInterpreter()
        let a = SensorPayload.cscMeasurement(
            CSCMeasurement(crankRevolutions: .init(cumulativeRevolutions: 0, lastEventTime: 0)))
        let b = SensorPayload.cscMeasurement(
            CSCMeasurement(crankRevolutions: .init(cumulativeRevolutions: 1, lastEventTime: 1024)))
        _ = interpreter.readings(from: a, at: 0)
        interpreter.reset()
        #expect(interpreter.readings(from: b, at: 1).isEmpty)
    }
}
