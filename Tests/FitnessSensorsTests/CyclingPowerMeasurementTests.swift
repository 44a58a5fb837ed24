import FitnessSensors
import Testing

@Suite("Cycling Power Measurement 0x2A63")
struct CyclingPowerMeasurementTests {
    typealias CPM = CyclingPowerMeasurement

    // MARK: Real captures

    /// Favero Assioma Uno pedals, flags 0x0020 (crank revolution data only).
    /// Source: doudar/SmartSpin2k, test/test_CyclePowerData.cpp ("Data from session w/ Assioma Uno pedals").
    @Test(arguments: [
        ("20 00 00 00 01 00 00 0b", 0, 1, 0x0B00),
        ("20 00 2d 00 02 00 b8 12", 45, 2, 0x12B8),
        ("20 00 2e 00 03 00 ae 17", 46, 3, 0x17AE),
        ("20 00 39 00 05 00 31 20", 57, 5, 0x2031),
        ("20 00 00 00 ff ff ff ff", 0, 0xFFFF, 0xFFFF),
    ])
    func assiomaUno(payload: String, watts: Int16, revolutions: UInt16, eventTime: UInt16) throws {
        let m = try CPM(bytes: hex(payload))
        #expect(m.flags == .crankRevolutionDataPresent)
        #expect(m.instantaneousPower == watts)
        #expect(m.crankRevolutions == CrankRevolutionData(cumulativeRevolutions: revolutions, lastEventTime: eventTime))
        #expect(m.wheelRevolutions == nil && m.accumulatedTorque == nil && m.accumulatedEnergy == nil)
        #expect(m.encode() == hex(payload))
    }

    /// A 4iiii crank power meter, flags 0x002C (crank-based accumulated torque + crank data).
    /// Source: OpenTracksApp/OpenTracks issue #1352 (from a user's btsnoop_hci.log) and the same bytes in
    /// src/androidTest/java/de/dennisguse/opentracks/sensors/BluetoothHandlerCyclingPowerTest.java.
    @Test func fourIIIICapture() throws {
        let first = try CPM(bytes: hex("2C 00 00 00 9F 00 0C 00 E5 42"))
        #expect(first.instantaneousPower == 0)
        #expect(first.accumulatedTorque == .init(rawValue: 0x009F, source: .crank))
        #expect(first.accumulatedTorque?.newtonMetres == 159.0 / 32)
        #expect(first.crankRevolutions == CrankRevolutionData(cumulativeRevolutions: 12, lastEventTime: 17125))
        let second = try CPM(bytes: hex("2C 00 00 00 DF 00 2B 00 39 F6"))
        #expect(second.crankRevolutions == CrankRevolutionData(cumulativeRevolutions: 43, lastEventTime: 63033))
        #expect(second.encode() == hex("2C 00 00 00 DF 00 2B 00 39 F6"))
    }

    /// Power only, 40 W. Source: OpenTracks BluetoothHandlerCyclingPowerTest.java (`{0, 0, 40, 0}`).
    @Test func powerOnly() throws {
        let m = try CPM(bytes: [0, 0, 40, 0])
        #expect(m == CPM(instantaneousPower: 40))
        #expect(m.encode() == [0, 0, 40, 0])
    }

    @Test func negativePower() throws {
        #expect(try CPM(bytes: hex("00 00 F6 FF")).instantaneousPower == -10)
    }

    // MARK: Every optional field individually

    /// One row per optional field: flags, the field's bytes, and the value it must decode to.
    static let singleFields: [(name: String, flags: UInt16, field: [UInt8], expected: CPM)] = [
        (
            "balance, unknown reference", 0x0001, [0x64],
            CPM(instantaneousPower: 200, pedalPowerBalance: .init(rawValue: 100, reference: .unknown))
        ),
        (
            "balance, left reference", 0x0003, [0x65],
            CPM(instantaneousPower: 200, pedalPowerBalance: .init(rawValue: 101, reference: .left))
        ),
        (
            "torque, wheel source", 0x0004, [0x40, 0x01],
            CPM(instantaneousPower: 200, accumulatedTorque: .init(rawValue: 320, source: .wheel))
        ),
        (
            "torque, crank source", 0x000C, [0x40, 0x01],
            CPM(instantaneousPower: 200, accumulatedTorque: .init(rawValue: 320, source: .crank))
        ),
        (
            "wheel revolutions", 0x0010, [0x78, 0x56, 0x34, 0x12, 0x00, 0x08],
            CPM(
                instantaneousPower: 200,
                wheelRevolutions: .init(cumulativeRevolutions: 0x1234_5678, lastEventTime: 0x0800))
        ),
        (
            "crank revolutions", 0x0020, [0x0A, 0x00, 0x00, 0x04],
            CPM(instantaneousPower: 200, crankRevolutions: .init(cumulativeRevolutions: 10, lastEventTime: 0x0400))
        ),
        (
            "extreme forces", 0x0040, [0xE8, 0x03, 0x9C, 0xFF],
            CPM(instantaneousPower: 200, extremeForceMagnitudes: .init(maximum: 1000, minimum: -100))
        ),
        (
            "extreme torques", 0x0080, [0x00, 0x10, 0xE0, 0xFF],
            CPM(instantaneousPower: 200, extremeTorqueMagnitudes: .init(maximumRaw: 4096, minimumRaw: -32))
        ),
        // The specification's own example: maximum 0xABC, minimum 0x123 travel as 0x123ABC.
        (
            "extreme angles", 0x0100, [0xBC, 0x3A, 0x12],
            CPM(instantaneousPower: 200, extremeAngles: .init(maximum: 0xABC, minimum: 0x123))
        ),
        ("top dead spot", 0x0200, [0x0F, 0x00], CPM(instantaneousPower: 200, topDeadSpotAngle: 15)),
        ("bottom dead spot", 0x0400, [0xC3, 0x00], CPM(instantaneousPower: 200, bottomDeadSpotAngle: 195)),
        ("accumulated energy", 0x0800, [0x39, 0x30], CPM(instantaneousPower: 200, accumulatedEnergy: 12345)),
        ("offset compensation indicator", 0x1000, [], CPM(instantaneousPower: 200, offsetCompensationIndicator: true)),
    ]

    @Test(arguments: singleFields.indices)
    func singleOptionalField(index: Int) throws {
        let row = Self.singleFields[index]
        let bytes = [UInt8(row.flags & 0xFF), UInt8(row.flags >> 8), 0xC8, 0x00] + row.field
        let m = try CPM(bytes: bytes)
        #expect(m == row.expected, "\(row.name)")
        #expect(m.flags.rawValue == row.flags, "\(row.name)")
        #expect(m.encode() == bytes, "\(row.name)")
        // Cut off the last byte: the error names the start of the (second half of a paired) field.
        let pairedFieldSecondHalf: [UInt16: Int] = [0x0010: 4, 0x0020: 2, 0x0040: 2, 0x0080: 2]
        if !row.field.isEmpty {
            let error = decodeError { _ = try CPM(bytes: Array(bytes.dropLast())) }
            #expect(error?.offset == 4 + pairedFieldSecondHalf[row.flags, default: 0], "\(row.name)")
        }
    }

    @Test func extremeAnglesUnitsAndPacking() {
        let angles = CPM.ExtremeAngles(packed: 0x123ABC)
        #expect(angles.maximum == 0xABC && angles.minimum == 0x123)
        #expect(angles.packed == 0x123ABC)
        #expect(
            CPM.ExtremeAngles(maximum: 0xFFFF, minimum: 0x1FFF) == CPM.ExtremeAngles(maximum: 0xFFF, minimum: 0xFFF))
        #expect(CPM.PedalPowerBalance(rawValue: 101, reference: .left).percent == 50.5)
        #expect(CPM.ExtremeTorqueMagnitudes(maximumRaw: 4096, minimumRaw: -32).minimumNewtonMetres == -1)
    }

    // MARK: All fields together

    /// flags 0x1FFF: every field, in spec order, with field starts at the offsets listed.
    static let allFields = hex(
        "FF 1F" + " 2C 01" + " 64" + " 40 01" + " 78 56 34 12 00 08" + " 0A 00 00 04"
            + " E8 03 9C FF" + " 00 10 E0 FF" + " BC 3A 12" + " 0F 00" + " C3 00" + " 39 30")
    static let fieldStarts = [0, 2, 4, 5, 7, 11, 13, 15, 17, 19, 21, 23, 25, 28, 30, 32]

    @Test func everyFieldTogether() throws {
        #expect(Self.allFields.count == 34)
        let m = try CPM(bytes: Self.allFields)
        let expected = CPM(
            instantaneousPower: 300,
            pedalPowerBalance: .init(rawValue: 100, reference: .left),
            accumulatedTorque: .init(rawValue: 320, source: .crank),
            wheelRevolutions: .init(cumulativeRevolutions: 0x1234_5678, lastEventTime: 0x0800),
            crankRevolutions: .init(cumulativeRevolutions: 10, lastEventTime: 0x0400),
            extremeForceMagnitudes: .init(maximum: 1000, minimum: -100),
            extremeTorqueMagnitudes: .init(maximumRaw: 4096, minimumRaw: -32),
            extremeAngles: .init(maximum: 0xABC, minimum: 0x123),
            topDeadSpotAngle: 15,
            bottomDeadSpotAngle: 195,
            accumulatedEnergy: 12345,
            offsetCompensationIndicator: true)
        #expect(m == expected)
        #expect(m.encode() == Self.allFields)
        #expect(expected.encode() == Self.allFields)
    }

    @Test func everyTruncationOfEveryFieldNamesTheFieldStart() {
        for length in 0 ..< Self.allFields.count {
            let expectedOffset = Self.fieldStarts.last { $0 <= length }!
            let error = decodeError { _ = try CPM(bytes: Array(Self.allFields.prefix(length))) }
            #expect(error?.offset == expectedOffset, "length \(length)")
        }
    }

    @Test func truncationReasonsNameTheField() {
        let crankCut = decodeError { _ = try CPM(bytes: hex("20 00 00 00 01")) }
        #expect(crankCut?.reason.contains("cumulative crank revolutions") == true)
        let wheelTimeCut = decodeError { _ = try CPM(bytes: hex("10 00 00 00 01 00 00 00 05")) }
        #expect(wheelTimeCut?.offset == 8)
        #expect(wheelTimeCut?.reason.contains("last wheel event time") == true)
    }

    // MARK: Tolerance

    @Test func reservedBitsAndTrailingBytesAreIgnored() throws {
        let m = try CPM(bytes: hex("00 E0 64 00 AA BB"))
        #expect(m == CPM(instantaneousPower: 100))
        #expect(m.encode() == hex("00 00 64 00"))
    }

    @Test func qualifierBitsWithoutTheirFieldAreDropped() throws {
        // Bits 1 and 3 qualify fields that are absent here.
        let m = try CPM(bytes: hex("0A 00 64 00"))
        #expect(m == CPM(instantaneousPower: 100))
        #expect(m.flags == [])
    }

    @Test func powerReadingKeepsBalanceAndEnergy() throws {
        let m = try CPM(bytes: hex("03 08 FA 00 60 10 00"))
        #expect(
            PowerReading(m)
                == PowerReading(
                    watts: 250, pedalPowerBalance: .init(rawValue: 0x60, reference: .left), accumulatedEnergyKJ: 16))
    }
}
