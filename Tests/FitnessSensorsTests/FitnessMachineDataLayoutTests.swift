import ByteCoding
import FitnessSensors
import Testing

/// The field tables behind the four Fitness Machine data characteristics: every field of a characteristic at once,
/// the fields after the shared five, and the parts of a record merged. Expected values are worked out by hand from
/// FTMS 1.0 §4.6–§4.9 (little-endian fields in flag order, bit 0 inverted), not from the decoder.
@Suite("Fitness Machine data layouts")
struct FitnessMachineDataLayoutTests {
    /// Indoor Bike Data with bits 1–12 set and bit 0 clear (flags 0x1FFE): all thirteen fields, in order.
    @Test func indoorBikeEveryField() throws {
        let bytes = hex(
            """
            FE 1F  C4 09  60 09  B4 00  AA 00  39 30 00  FB FF  FA 00  F0 00  64 00 58 02 0A  96  55  10 0E  58 02
            """)
        let d = try IndoorBikeData(bytes: bytes)
        #expect(d.instantaneousSpeed == 2500)  // 0x09C4: 25.00 km/h
        #expect(d.averageSpeed == 2400)  // 0x0960
        #expect(d.instantaneousCadence == 180)  // 0x00B4 half-rpm: 90 rpm
        #expect(d.cadenceRPM == 90)
        #expect(d.averageCadence == 170)
        #expect(d.totalDistance == 12_345)  // 0x003039, u24
        #expect(d.resistanceLevel == -5)  // 0xFFFB, s16
        #expect(d.instantaneousPower == 250)
        #expect(d.averagePower == 240)
        #expect(d.expendedEnergy == FitnessMachineEnergy(total: 100, perHour: 600, perMinute: 10))
        #expect(d.heartRate == 150)
        #expect(d.metabolicEquivalent == 85)
        #expect(d.elapsedTime == 3600)  // 0x0E10
        #expect(d.remainingTime == 600)
        #expect(d.flags == 0x1FFE)
        #expect(!d.hasMoreData)
        #expect(d.encode() == bytes)
    }

    /// Treadmill Data's force on belt and power output (bit 12) come after the shared five: here after heart rate
    /// (bit 8). Flags 0x1100: speed (bit 0 clear), heart rate, belt.
    @Test func treadmillBeltPowerAfterTheSharedFields() throws {
        let bytes = hex("00 11  B0 04  8C  EC FF  B4 00")
        let t = try TreadmillData(bytes: bytes)
        #expect(t.instantaneousSpeed == 1200)
        #expect(t.heartRate == 140)
        #expect(t.beltPower == .init(force: -20, power: 180))
        #expect(t.flags == 0x1100)
        #expect(t.encode() == bytes)
    }

    /// Cross Trainer Data with its pairs (elevation gain, inclination and ramp) and the shared five on bits 10–14:
    /// flags 0x000461 = speed absent (More Data), elevation gain (5), inclination (6), energy (10).
    @Test func crossTrainerPairsAndEnergy() throws {
        let bytes = hex("61 04 00  0C 00 02 00  F6 FF 1E 00  2C 01 B0 04 05")
        let c = try CrossTrainerData(bytes: bytes)
        #expect(c.hasMoreData)
        #expect(c.instantaneousSpeed == nil)
        #expect(c.elevationGain == [12, 2])
        #expect(c.inclination == [-10, 30])
        #expect(c.expendedEnergy == FitnessMachineEnergy(total: 300, perHour: 1200, perMinute: 5))
        #expect(!c.movesBackward)
        #expect(c.flags == 0x0461)
        #expect(c.encode() == bytes)
    }

    /// A record in two parts: the later part's fields are laid over the earlier's, a field in both takes the later
    /// value, and the last part (More Data clear) completes it.
    @Test func partsMergeWithTheLaterValueWinning() throws {
        let first = try IndoorBikeData(bytes: hex("41 02  C8 00  50"))  // More Data; power 200, heart rate 80
        let last = try IndoorBikeData(bytes: hex("40 00  B8 0B  D2 00"))  // speed 30.00 km/h, power 210
        let merged = first.merging(last)
        #expect(merged.instantaneousSpeed == 3000)
        #expect(merged.instantaneousPower == 210)
        #expect(merged.heartRate == 80)
        #expect(!merged.hasMoreData)
        #expect(merged.encode() == hex("40 02  B8 0B  D2 00  50"))
    }

    /// Cross Trainer Data's direction is a flag with no bytes: the later part's says where the machine goes.
    @Test func directionTakesTheLaterPart() throws {
        let backward = try CrossTrainerData(bytes: hex("01 80 00"))
        let forward = try CrossTrainerData(bytes: hex("00 00 00  E8 03"))
        #expect(backward.movesBackward)
        #expect(!backward.merging(forward).movesBackward)
        #expect(forward.merging(backward).movesBackward)
        #expect(forward.merging(backward).instantaneousSpeed == 1000)
    }

    /// A part of a field cut short names that part: Rower Data's energy per hour (flags 0x0101: energy only).
    @Test func aCutPairNamesItsPart() {
        #expect(throws: DecodeError("expected 2 bytes for energy per hour, found 1", at: 4)) {
            try RowerData(bytes: hex("01 01  64 00  58"))
        }
        #expect(throws: DecodeError("expected 2 bytes for stroke count, found 0", at: 3)) {
            try RowerData(bytes: hex("00 00  38"))
        }
    }
}
