import ByteCoding
import FitnessSensors
import Testing

@Suite("Heart Rate Measurement 0x2A37")
struct HeartRateMeasurementTests {
    // MARK: Real captures

    /// Polar H7, flags 0x16 (contact detected, RR present), 77 bpm, RR 790/1024 s.
    /// Source: StackOverflow answer on Polar H7 characteristic values, mirrored at
    /// https://e-learn.cn/qa/answer/1013198/2064110.html ("[22, 77, 22, 3] … 790/1024 = 0.77s").
    @Test func polarH7() throws {
        let m = try HeartRateMeasurement(bytes: [22, 77, 22, 3])
        #expect(m.heartRate == 77)
        #expect(m.valueFormat == .uint8)
        #expect(m.sensorContact == .detected)
        #expect(m.energyExpended == nil)
        #expect(m.rrIntervals == [790])
        #expect(m.rrIntervalSeconds == [790.0 / 1024])
        #expect(m.encode() == [22, 77, 22, 3])
    }

    /// Polar H10 on Android, flags 0x10 (RR present, contact not supported), 59 bpm, RR 0x0453.
    /// Source: StackOverflow question 67024800 "BLE heart rate senser value interpretation"
    /// ("The characteristics value is i.e. [16, 59, 83, 4]").
    @Test func polarH10() throws {
        let m = try HeartRateMeasurement(bytes: [16, 59, 83, 4])
        #expect(m.heartRate == 59)
        #expect(m.sensorContact == .notSupported)
        #expect(m.rrIntervals == [1107])
        #expect(m.encode() == [16, 59, 83, 4])
    }

    /// An unbranded Bluetooth/ANT+ strap read with gatttool (handle 0x000e notifications).
    /// Source: StackOverflow question 60599696 "Garmin BLE heart rate monitor: cannot get HRM
    /// data via bluetooth" ("Notification handle = 0x000e value: 16 34 e4 04" and three more).
    @Test(arguments: [
        ("16 34 e4 04", 52, 0x04E4),
        ("16 34 a5 04", 52, 0x04A5),
        ("16 33 ea 04", 51, 0x04EA),
        ("16 33 de 04", 51, 0x04DE),
    ])
    func gatttoolCapture(payload: String, bpm: Int, rr: Int) throws {
        let m = try HeartRateMeasurement(bytes: hex(payload))
        #expect(Int(m.heartRate) == bpm)
        #expect(m.sensorContact == .detected)
        #expect(m.rrIntervals == [UInt16(rr)])
        #expect(m.encode() == hex(payload))
    }

    // MARK: Spec-derived vectors (Polar BLE SDK unit tests, synthetic)

    /// Source: polarofficial/polar-ble-sdk, sources/Android/android-communications/library/src/test/
    /// java/com/polar/androidcommunications/api/ble/model/gatt/client/BleHrClientTest.kt.
    @Test func polarSDKVectors() throws {
        #expect(try HeartRateMeasurement(bytes: hex("00 FF")).heartRate == 255)
        let wide = try HeartRateMeasurement(bytes: hex("01 80 80"))
        #expect(wide.heartRate == 32896)
        #expect(wide.valueFormat == .uint16)
        #expect(try HeartRateMeasurement(bytes: hex("06 00")).sensorContact == .detected)
        #expect(try HeartRateMeasurement(bytes: hex("04 00")).sensorContact == .notDetected)
        #expect(try HeartRateMeasurement(bytes: hex("02 00")).sensorContact == .notSupported)
        #expect(try HeartRateMeasurement(bytes: hex("00 00")).sensorContact == .notSupported)
        let energy16 = try HeartRateMeasurement(bytes: hex("09 00 00 FF FF"))
        #expect(energy16.heartRate == 0 && energy16.energyExpended == 65535)
        #expect(try HeartRateMeasurement(bytes: hex("08 00 7F 80")).energyExpended == 32895)
        let rr = try HeartRateMeasurement(bytes: hex("11 00 00 FF FF 7F 80"))
        #expect(rr.rrIntervals == [65535, 32895])
        #expect(try HeartRateMeasurement(bytes: hex("10 00 FF FF")).rrIntervals == [65535])
    }

    // MARK: Every flag combination

    /// Builds a payload for `flags` with fixed field values: HR 0x48 (or 0x0148 as uint16),
    /// energy 0x1234 kJ, RR intervals 0x0400 and 0x0333.
    static func payload(flags: UInt8) -> [UInt8] {
        var bytes: [UInt8] = [flags]
        bytes += flags & 0x01 != 0 ? [0x48, 0x01] : [0x48]
        if flags & 0x08 != 0 { bytes += [0x34, 0x12] }
        if flags & 0x10 != 0 { bytes += [0x00, 0x04, 0x33, 0x03] }
        return bytes
    }

    @Test(arguments: UInt8(0) ... 0xFF)
    func everyFlagsByte(flags: UInt8) throws {
        let bytes = Self.payload(flags: flags)
        let m = try HeartRateMeasurement(bytes: bytes)
        #expect(m.heartRate == (flags & 0x01 != 0 ? 0x0148 : 0x48))
        #expect(m.valueFormat == (flags & 0x01 != 0 ? .uint16 : .uint8))
        let expectedContact: HeartRateMeasurement.SensorContact =
            switch (flags >> 1) & 0b11 {
            case 0b11: .detected
            case 0b10: .notDetected
            default: .notSupported
            }
        #expect(m.sensorContact == expectedContact)
        #expect(m.energyExpended == (flags & 0x08 != 0 ? 0x1234 : nil))
        #expect(m.rrIntervals == (flags & 0x10 != 0 ? [0x0400, 0x0333] : []))

        // Decoding the encoding gives the same value; the bytes are the canonical form, which
        // differs from the input only in reserved bits 5–7 and in "not supported" written as 0b00.
        #expect(try HeartRateMeasurement(bytes: m.encode()) == m)
        let canonicalFlags = flags & 0b0001_1001 | (flags & 0b0100 != 0 ? flags & 0b0110 : 0)
        #expect(m.encode() == [canonicalFlags] + bytes.dropFirst())
    }

    // MARK: Malformed and truncated payloads

    @Test func oddTrailingRRByteNamesItsOffset() {
        let error = decodeError { _ = try HeartRateMeasurement(bytes: hex("10 48 00 04 33")) }
        #expect(error?.offset == 4)
        #expect(error?.reason.contains("RR") == true)
        // With uint16 HR and energy expended, the odd byte moves to offset 9.
        let error2 = decodeError { _ = try HeartRateMeasurement(bytes: hex("19 48 01 34 12 00 04 33 03 07")) }
        #expect(error2?.offset == 9)
    }

    /// Every prefix of the full payload (uint16 HR, contact, energy, two RRs) either throws at the
    /// start of the cut field or, at an RR boundary, decodes the RRs that are complete.
    @Test func everyTruncation() throws {
        let full = Self.payload(flags: 0x1F)
        #expect(full.count == 9)
        let expectedOffsets: [Int: Int] = [0: 0, 1: 1, 2: 1, 3: 3, 4: 3, 6: 5, 8: 7]
        for length in 0 ..< full.count {
            let prefix = Array(full.prefix(length))
            if let offset = expectedOffsets[length] {
                let error = decodeError { _ = try HeartRateMeasurement(bytes: prefix) }
                #expect(error?.offset == offset, "length \(length)")
            } else {
                let m = try HeartRateMeasurement(bytes: prefix)
                #expect(m.rrIntervals.count == (length - 5) / 2, "length \(length)")
            }
        }
    }

    @Test func emptyPayloadNamesTheFlagsByte() {
        let error = decodeError { _ = try HeartRateMeasurement(bytes: []) }
        #expect(error == DecodeError("expected 1 byte for flags, found 0", at: 0))
    }

    @Test func bytesAfterEnergyAreIgnoredWithoutRRFlag() throws {
        let m = try HeartRateMeasurement(bytes: hex("08 50 10 00 AA"))
        #expect(m.energyExpended == 16)
        #expect(m.rrIntervals.isEmpty)
    }

    // MARK: Encoding

    @Test func manyRRIntervalsRoundTrip() throws {
        let m = HeartRateMeasurement(heartRate: 180, sensorContact: .detected, rrIntervals: Array(300 ..< 309))
        #expect(m.encode().count == 2 + 18)
        #expect(try HeartRateMeasurement(bytes: m.encode()) == m)
    }

    @Test func valuesAbove255AreEncodedAsUInt16() throws {
        let m = HeartRateMeasurement(heartRate: 300, valueFormat: .uint8)
        #expect(m.valueFormat == .uint16)
        #expect(m.encode() == hex("01 2C 01"))
        #expect(try HeartRateMeasurement(bytes: m.encode()) == m)
    }

    @Test func readingCarriesSecondsAndContact() throws {
        let reading = HeartRateReading(try HeartRateMeasurement(bytes: hex("1E 8C 05 00 00 04 00 02")))
        #expect(
            reading == HeartRateReading(bpm: 140, rrIntervals: [1.0, 0.5], contact: .detected, energyExpendedKJ: 5))
    }
}
