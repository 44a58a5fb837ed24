import ByteCoding
import FitnessSensors
import Testing

@Suite("Fitness Machine data characteristics")
struct FitnessMachineDataTests {
    /// A Saris H3's Indoor Bike Data frame as published in a trainer app's unit test (the TrainerService test of an
    /// FTMS parser found by code search; repository not named by the index): flags 0x0046, 30.00 km/h, average
    /// speed 0, 90 rpm, 250 W.
    @Test func sarisH3IndoorBikeFrame() throws {
        let bytes = hex("46 00 B8 0B 00 00 B4 00 FA 00")
        let d = try IndoorBikeData(bytes: bytes)
        #expect(d.instantaneousSpeed == 3000)
        #expect(d.averageSpeed == 0)
        #expect(d.cadenceRPM == 90)
        #expect(d.instantaneousPower == 250)
        #expect(!d.hasMoreData)
        #expect(d.encode() == bytes)
    }

    /// The iConsole+ bike's 21-byte frame, rebuilt from the field values its client's reference documents
    /// (BostonLeeK/iconsole-plus-client QUICK_REFERENCE.md: flags 0x0B74, 13.40 km/h, 36 rpm, 33 m, resistance 1,
    /// 24 W, 2 kcal, 86 bpm, 16 s).
    @Test func iConsoleFrame() throws {
        let bytes = hex("74 0B 3C 05 48 00 21 00 00 01 00 18 00 02 00 00 00 00 56 10 00")
        let d = try IndoorBikeData(bytes: bytes)
        #expect(d.speedMetresPerSecond.map { ($0 * 3.6 * 100).rounded() } == 1340)
        #expect(d.cadenceRPM == 36)
        #expect(d.totalDistance == 33)
        #expect(d.resistanceLevel == 1)
        #expect(d.instantaneousPower == 24)
        #expect(d.expendedEnergy == FitnessMachineEnergy(total: 2, perHour: 0, perMinute: 0))
        #expect(d.heartRate == 86)
        #expect(d.elapsedTime == 16)
        #expect(d.encode() == bytes)
    }

    /// More Data is bit 0, inverted: set, the speed is absent and the record goes on.
    @Test func moreDataMeansNoSpeed() throws {
        let part = try IndoorBikeData(bytes: hex("41 00 C8 00"))
        #expect(part.hasMoreData)
        #expect(part.instantaneousSpeed == nil)
        #expect(part.instantaneousPower == 200)
        #expect(part.encode() == hex("41 00 C8 00"))
    }

    /// Treadmill Data with speed, distance, inclination and ramp, elevation gain, elapsed time (FTMS 1.0 §4.6).
    @Test func treadmill() throws {
        let bytes = hex("1C 04 E8 03 10 27 00 32 00 1D 00 0A 00 00 00 3C 00")
        let t = try TreadmillData(bytes: bytes)
        #expect(t.instantaneousSpeed == 1000)
        #expect(t.totalDistance == 10_000)
        #expect(t.inclination == .init(inclination: 50, rampAngle: 29))
        #expect(t.inclination?.percent == 5)
        #expect(t.elevationGain == .init(positive: 10, negative: 0))
        #expect(t.elapsedTime == 60)
        #expect(t.encode() == bytes)
    }

    /// Rower Data: stroke rate (1/2 per min) and count come with More Data clear; pace gives the boat's speed.
    @Test func rower() throws {
        let bytes = hex("2C 00 38 2A 00 D0 07 00 78 00 96 00")
        let r = try RowerData(bytes: bytes)
        #expect(r.strokes == .init(rate: 56, count: 42))
        #expect(r.strokes?.perMinute == 28)
        #expect(r.totalDistance == 2000)
        #expect(r.instantaneousPace == 120)
        #expect(r.speedMetresPerSecond.map { ($0 * 1000).rounded() } == 4167)
        #expect(r.instantaneousPower == 150)
        #expect(r.encode() == bytes)
    }

    /// Cross Trainer Data has 24 flag bits; bit 15 is the direction, a flag with no field.
    @Test func crossTrainer() throws {
        let bytes = hex("08 81 00 E8 03 A0 00 96 00 64 00")
        let c = try CrossTrainerData(bytes: bytes)
        #expect(c.instantaneousSpeed == 1000)
        #expect(c.stepRate == [160, 150])
        #expect(c.instantaneousPower == 100)
        #expect(c.movesBackward)
        #expect(c.encode() == bytes)
    }

    /// A flag naming a field the value does not hold: one error naming the field.
    @Test func truncatedFlaggedField() {
        #expect(throws: DecodeError("expected 2 bytes for instantaneous power, found 1", at: 4)) {
            try IndoorBikeData(bytes: hex("40 00 10 27 C8"))
        }
        #expect(throws: DecodeError("expected 2 bytes for flags, found 1", at: 0)) {
            try TreadmillData(bytes: hex("00"))
        }
        #expect(throws: DecodeError("expected 3 bytes for flags, found 2", at: 0)) {
            try CrossTrainerData(bytes: hex("00 00"))
        }
    }

    @Test func feature() throws {
        let bytes = hex("02 40 00 00 0C 20 00 00")
        let f = try FitnessMachineFeature(bytes: bytes)
        #expect(f.machine == [.cadence, .power])
        #expect(f.targetSetting == [.resistance, .power, .indoorBikeSimulation])
        #expect(f.encode() == bytes)
    }

    @Test func ranges() throws {
        let power = try SupportedPowerRange(bytes: hex("00 00 D0 07 01 00"))
        #expect(power.bounds == 0 ... 2000)
        let incline = try SupportedInclinationRange(bytes: hex("9C FF 96 00 05 00"))
        #expect(incline.bounds == -10 ... 15)
        #expect(try SupportedSpeedRange(bytes: hex("32 00 40 06 0A 00")).bounds == 0.5 ... 16)
        #expect(try SupportedResistanceLevelRange(bytes: hex("0A 00 C8 00 0A 00")).contains(100))
        // min above max: one clear error.
        #expect(throws: DecodeError("supported range with minimum 2000 above maximum 0", at: 0)) {
            try SupportedPowerRange(bytes: hex("D0 07 00 00 01 00"))
        }
    }

    @Test func trainingStatus() throws {
        let bytes = hex("01 0D") + Array("Manual".utf8)
        let status = try TrainingStatus(bytes: bytes)
        #expect(status.status == 0x0D)
        #expect(status.text == "Manual")
        #expect(status.encode() == bytes)
    }

    @Test func status() throws {
        let status = try FitnessMachineStatus(bytes: hex("08 C8 00"))
        #expect(status.targetPower == 200)
        #expect(try FitnessMachineStatus(bytes: hex("FF")).isControlPermissionLost)
        #expect(throws: DecodeError("expected 2 parameter bytes for status 0x8, found 1", at: 1)) {
            try FitnessMachineStatus(bytes: hex("08 C8"))
        }
    }

    @Test func controlPoint() throws {
        typealias CP = FitnessMachineControlPoint
        #expect(CP.Request.requestControl.encode() == [0x00])
        #expect(CP.Request.setTargetPower(200).encode() == hex("05 C8 00"))
        #expect(CP.Request.setTargetResistanceLevel(45).encode() == hex("04 2D"))
        #expect(
            CP.Request.setIndoorBikeSimulation(windSpeed: 0, grade: 350, rollingResistance: 40, windResistance: 51)
                .encode()
                == hex("11 00 00 5E 01 28 33"))
        #expect(CP.Request.stopOrPause(1).encode() == hex("08 01"))
        #expect(try CP.Request(bytes: hex("05 C8 00")) == .setTargetPower(200))
        #expect(throws: DecodeError.self) { try CP.Request(bytes: hex("05 C8")) }
        let response = try CP.Response(bytes: hex("80 05 05"))
        #expect(response.requestOpCode == 0x05)
        #expect(response.result == .controlNotPermitted)
        #expect(throws: DecodeError("expected response code 0x80, found 0x5", at: 0)) {
            try CP.Response(bytes: hex("05 01"))
        }
    }
}
