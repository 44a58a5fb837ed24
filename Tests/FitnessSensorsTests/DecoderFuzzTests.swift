import ByteCoding
import FitnessSensors
import TestSupport
import Testing

/// Random bytes into every decoder: each must either decode or throw a ``DecodeError`` with an
/// offset inside the payload — never trap — and whatever decodes must survive encode → decode.
@Suite("Decoder fuzzing")
struct DecoderFuzzTests {
    static let payloadCount = 100_000

    /// Checks one decoder on one payload; returns whether it decoded.
    @discardableResult
    static func check<Value: GATTCharacteristicValue>(_: Value.Type, _ bytes: [UInt8]) -> Bool {
        do {
            let value = try Value(bytes: bytes)
            let reencoded = value.encode()
            let again = try Value(bytes: reencoded)
            if again != value || again.encode() != reencoded {
                Issue.record("\(Value.self) does not round-trip \(bytes)")
            }
            return true
        } catch {
            if error.offset < 0 || error.offset > bytes.count {
                Issue.record("\(Value.self) error offset \(error.offset) outside 0...\(bytes.count) for \(bytes)")
            }
            return false
        }
    }

    @Test func randomPayloadsNeverTrap() {
        var generator = SplitMix64(seed: 0x4F48_4B5F_4655_5A5A)
        var decoded: [String: Int] = [:]
        var interpreter = SensorReadingInterpreter()
        var arrival = 0.0
        for _ in 0 ..< Self.payloadCount {
            let length = Int.random(in: 0 ... 40, using: &generator)
            let bytes = (0 ..< length).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
            if Self.check(HeartRateMeasurement.self, bytes) { decoded["hr", default: 0] += 1 }
            if Self.check(CyclingPowerMeasurement.self, bytes) { decoded["cpm", default: 0] += 1 }
            if Self.check(CSCMeasurement.self, bytes) { decoded["csc", default: 0] += 1 }
            if Self.check(CyclingPowerFeature.self, bytes) { decoded["cpf", default: 0] += 1 }
            if Self.check(BodySensorLocation.self, bytes) { decoded["bsl", default: 0] += 1 }
            if Self.check(CSCFeature.self, bytes) { decoded["cscf", default: 0] += 1 }
            if Self.check(SensorLocation.self, bytes) { decoded["location", default: 0] += 1 }
            if Self.check(BatteryLevel.self, bytes) { decoded["battery", default: 0] += 1 }
            if Self.check(RSCMeasurement.self, bytes) { decoded["rsc", default: 0] += 1 }
            if Self.check(IndoorBikeData.self, bytes) { decoded["bike", default: 0] += 1 }
            if Self.check(TreadmillData.self, bytes) { decoded["treadmill", default: 0] += 1 }
            if Self.check(RowerData.self, bytes) { decoded["rower", default: 0] += 1 }
            if Self.check(CrossTrainerData.self, bytes) { decoded["crossTrainer", default: 0] += 1 }
            if Self.check(SupportedPowerRange.self, bytes) { decoded["powerRange", default: 0] += 1 }
            if Self.check(FitnessMachineControlPoint.Response.self, bytes) { decoded["cpResponse", default: 0] += 1 }
            if Self.check(FitnessMachineControlPoint.Request.self, bytes) { decoded["cpRequest", default: 0] += 1 }
            if Self.check(FitnessMachineStatus.self, bytes) { decoded["status", default: 0] += 1 }
            if Self.check(TrainingStatus.self, bytes) { decoded["training", default: 0] += 1 }
            do {
                let string = try DeviceInformationString(field: .modelNumber, bytes: bytes)
                let again = try DeviceInformationString(field: .modelNumber, bytes: string.encode())
                if again != string { Issue.record("device information string does not round-trip \(bytes)") }
                decoded["dis", default: 0] += 1
            } catch {
                if error.offset < 0 || error.offset > bytes.count { Issue.record("bad offset \(error.offset)") }
            }
            let characteristic = SensorPayload.supportedCharacteristics[
                Int.random(in: 0 ..< SensorPayload.supportedCharacteristics.count, using: &generator)]
            if let payload = try? SensorPayload.decode(characteristic: characteristic, bytes: bytes) {
                #expect(payload.characteristic == characteristic)
            }
            // The interpreter (More Data reassembly, distance totals) takes whatever decodes, in any order.
            arrival += Double(bytes.first ?? 0) / 256
            _ = try? interpreter.readings(fromValue: bytes, of: characteristic, at: arrival)
        }
        // The generator reaches the success paths of every decoder, not just the error paths.
        for name in [
            "hr", "cpm", "csc", "cpf", "bsl", "cscf", "location", "battery", "dis", "rsc", "bike", "treadmill",
            "rower", "crossTrainer", "powerRange", "cpResponse", "cpRequest", "status", "training",
        ] {
            #expect(decoded[name, default: 0] > 100, "\(name) decoded only \(decoded[name, default: 0]) times")
        }
    }

    /// Random counters and arrival times into the calculators: outputs stay finite, non-negative
    /// and within the configured maximum, and distance never decreases.
    @Test func randomSamplesKeepCalculatorsInBounds() {
        var generator = SplitMix64(seed: 42)
        var cadence = CrankCadenceCalculator()
        var speed = WheelSpeedCalculator.cyclingPower()
        var time = 0.0
        var lastDistance = 0.0
        var crank = (revolutions: UInt16(0), ticks: UInt16(0))
        var wheel = (revolutions: UInt32(0), ticks: UInt16(0))
        for _ in 0 ..< 20_000 {
            time += Double.random(in: -0.5 ... 5, using: &generator)
            if Bool.random(using: &generator) {
                crank = (.random(in: 0 ... .max, using: &generator), .random(in: 0 ... .max, using: &generator))
                wheel = (.random(in: 0 ... .max, using: &generator), .random(in: 0 ... .max, using: &generator))
            } else {
                crank.revolutions &+= .random(in: 0 ... 3, using: &generator)
                crank.ticks &+= .random(in: 0 ... 2048, using: &generator)
                wheel.revolutions &+= .random(in: 0 ... 10, using: &generator)
                wheel.ticks &+= .random(in: 0 ... 4096, using: &generator)
            }
            if let rpm = cadence.update(cumulativeRevolutions: crank.revolutions, lastEventTime: crank.ticks, at: time)
            {
                #expect(rpm.isFinite && rpm >= 0 && rpm <= cadence.maximumCadence)
            }
            if let metresPerSecond = speed.update(
                cumulativeRevolutions: wheel.revolutions, lastEventTime: wheel.ticks, at: time)
            {
                #expect(metresPerSecond.isFinite && metresPerSecond >= 0 && metresPerSecond <= speed.maximumSpeed)
            }
            #expect(speed.distance >= lastDistance)
            lastDistance = speed.distance
        }
    }
}
