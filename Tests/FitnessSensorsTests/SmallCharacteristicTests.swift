import FitnessSensors
import Testing

@Suite("CSC Measurement 0x2A5B")
struct CSCMeasurementTests {
    /// Wheel and crank data. Source: OpenTracksApp/OpenTracks,
    /// src/androidTest/java/de/dennisguse/opentracks/sensors/BluetoothHandlerCyclingDistanceSpeedTest.java
    /// (`{0x03, 0xC8, 0x00, 0x00, 0x01, 0x06, 0x99, 0xE1, 0x00, 0x45, 0x99}` → 200 + 2^24 wheel revs, 225 crank revs).
    @Test func wheelAndCrank() throws {
        let bytes = hex("03 C8 00 00 01 06 99 E1 00 45 99")
        let m = try CSCMeasurement(bytes: bytes)
        #expect(
            m.wheelRevolutions == WheelRevolutionData(cumulativeRevolutions: 200 + 16_777_216, lastEventTime: 0x9906))
        #expect(m.crankRevolutions == CrankRevolutionData(cumulativeRevolutions: 225, lastEventTime: 0x9945))
        #expect(m.encode() == bytes)
    }

    /// Crank only, with two extra bytes after the crank data (same OpenTracks test file,
    /// `{0x02, 0xC8, 0x00, 0x00, 0x00, 0x06, 0x99}`): the extra bytes are ignored.
    @Test func crankOnlyWithTrailingBytes() throws {
        let m = try CSCMeasurement(bytes: hex("02 C8 00 00 00 06 99"))
        #expect(m == CSCMeasurement(crankRevolutions: .init(cumulativeRevolutions: 200, lastEventTime: 0)))
        #expect(m.encode() == hex("02 C8 00 00 00"))
    }

    static let flagCombinations: [(UInt8, [UInt8])] = [
        (0x00, []),
        (0x01, [0x10, 0x00, 0x00, 0x00, 0x00, 0x04]),
        (0x02, [0x05, 0x00, 0x00, 0x08]),
        (0x03, [0x10, 0x00, 0x00, 0x00, 0x00, 0x04, 0x05, 0x00, 0x00, 0x08]),
    ]

    @Test(arguments: flagCombinations)
    func everyFlagCombinationRoundTrips(flags: UInt8, fields: [UInt8]) throws {
        let bytes = [flags] + fields
        let m = try CSCMeasurement(bytes: bytes)
        #expect(m.flags == flags)
        #expect(m.encode() == bytes)
        #expect((m.wheelRevolutions != nil) == (flags & 1 != 0))
        #expect((m.crankRevolutions != nil) == (flags & 2 != 0))
    }

    @Test func everyTruncation() {
        let full = hex("03 10 00 00 00 00 04 05 00 00 08")
        let fieldStarts = [0, 1, 5, 7, 9]
        for length in 0 ..< full.count {
            let error = decodeError { _ = try CSCMeasurement(bytes: Array(full.prefix(length))) }
            #expect(error?.offset == fieldStarts.last { $0 <= length }!, "length \(length)")
        }
    }
}

@Suite("Cycling Power Feature 0x2A65")
struct CyclingPowerFeatureTests {
    @Test func bitsAndFields() throws {
        // Crank revolution data, accumulated energy, torque-based context, distributed use supported.
        let f = try CyclingPowerFeature(bytes: hex("88 00 21 00"))
        #expect(f.contains(.crankRevolutionDataSupported))
        #expect(f.contains(.accumulatedEnergySupported))
        #expect(!f.contains(.wheelRevolutionDataSupported))
        #expect(f.sensorMeasurementContext == .torqueBased)
        #expect(f.distributedSystemSupport == .supported)
        #expect(f.encode() == hex("88 00 21 00"))
    }

    @Test func everySingleBitRoundTrips() throws {
        for bit in 0 ..< 32 {
            let f = CyclingPowerFeature(rawValue: 1 << UInt32(bit))
            #expect(try CyclingPowerFeature(bytes: f.encode()) == f)
        }
    }

    @Test func distributedSystemSupportIsSettable() {
        var f: CyclingPowerFeature = [.pedalPowerBalanceSupported]
        f.distributedSystemSupport = .notSupported
        #expect(f.rawValue == 0x0010_0001)
        f.distributedSystemSupport = .unspecified
        #expect(f == [.pedalPowerBalanceSupported])
    }

    @Test(arguments: 0 ..< 4)
    func truncated(length: Int) {
        let error = decodeError { _ = try CyclingPowerFeature(bytes: Array(repeating: 0xFF, count: length)) }
        #expect(error?.offset == 0)
    }
}

@Suite("CSC Feature 0x2A5C")
struct CSCFeatureTests {
    @Test func bits() throws {
        let f = try CSCFeature(bytes: hex("06 00"))
        #expect(f == [.crankRevolutionDataSupported, .multipleSensorLocationsSupported])
        #expect(f.encode() == hex("06 00"))
        #expect(try CSCFeature(bytes: hex("00 80")).rawValue == 0x8000)
        #expect(decodeError { _ = try CSCFeature(bytes: [0x01]) }?.offset == 0)
    }
}

@Suite("Battery Level 0x2A19, Body Sensor Location 0x2A38, Sensor Location 0x2A5D")
struct SingleByteCharacteristicTests {
    @Test(arguments: UInt8(0) ... 100)
    func validBatteryLevels(percent: UInt8) throws {
        let level = try BatteryLevel(bytes: [percent])
        #expect(level.percent == percent)
        #expect(level.encode() == [percent])
        #expect(BatteryReading(level) == BatteryReading(percent: Int(percent)))
    }

    @Test(arguments: UInt8(101) ... 255)
    func batteryAbove100Throws(value: UInt8) {
        let error = decodeError { _ = try BatteryLevel(bytes: [value]) }
        #expect(error?.offset == 0)
        #expect(BatteryLevel(percent: value) == nil)
    }

    @Test func emptyBatteryLevelThrows() {
        #expect(decodeError { _ = try BatteryLevel(bytes: []) }?.offset == 0)
    }

    @Test func bodySensorLocations() throws {
        #expect(try BodySensorLocation(bytes: [1]) == .chest)
        #expect(try BodySensorLocation(bytes: [5]).description == "ear lobe")
        let reserved = try BodySensorLocation(bytes: [0x42])
        #expect(!reserved.isAssigned)
        #expect(reserved.rawValue == 0x42)
        #expect(reserved.encode() == [0x42])
        #expect(decodeError { _ = try BodySensorLocation(bytes: []) }?.offset == 0)
    }

    @Test func cyclingSensorLocations() throws {
        #expect(try SensorLocation(bytes: [5]) == .leftCrank)
        #expect(try SensorLocation(bytes: [15]).description == "spider")
        #expect(try SensorLocation(bytes: [16]).description == "chain ring")
        #expect(try SensorLocation(bytes: [17]).description == "reserved (17)")
        #expect(!SensorLocation(rawValue: 17).isAssigned)
        #expect(decodeError { _ = try SensorLocation(bytes: []) }?.offset == 0)
    }
}

@Suite("Device Information strings")
struct DeviceInformationTests {
    @Test func decodesAndTrimsTrailingNULs() throws {
        let s = try DeviceInformationString(
            field: .manufacturerName, bytes: Array("Polar Electro Oy".utf8) + [0, 0, 0])
        #expect(s.value == "Polar Electro Oy")
        #expect(s.encode() == Array("Polar Electro Oy".utf8))
    }

    @Test func keepsInteriorNULsAndMultibyteCharacters() throws {
        let s = try DeviceInformationString(field: .modelNumber, bytes: Array("Wahoo\u{0}Kickr ✓".utf8))
        #expect(s.value == "Wahoo\u{0}Kickr ✓")
        #expect(try DeviceInformationString(field: .modelNumber, bytes: []).value == "")
        #expect(try DeviceInformationString(field: .modelNumber, bytes: [0, 0]).value == "")
    }

    @Test func invalidUTF8NamesTheOffset() {
        // "AB" then a lone continuation byte.
        #expect(
            decodeError { _ = try DeviceInformationString(field: .serialNumber, bytes: [0x41, 0x42, 0x80, 0x43]) }?
                .offset == 2)
        // "é" is fine, then a truncated 3-byte sequence at offset 3.
        #expect(
            decodeError {
                _ = try DeviceInformationString(field: .serialNumber, bytes: [0x41, 0xC3, 0xA9, 0xE2, 0x9C])
            }?.offset == 3)
        // An overlong encoding of "/" is not UTF-8.
        #expect(
            decodeError { _ = try DeviceInformationString(field: .serialNumber, bytes: [0xC0, 0xAF]) }?.offset == 0)
    }

    @Test func collectsIntoDeviceInformation() throws {
        var info = DeviceInformation()
        #expect(try info.update(characteristic: 0x2A29, bytes: Array("Polar Electro Oy".utf8)))
        #expect(try info.update(characteristic: 0x2A24, bytes: Array("H10".utf8)))
        #expect(try info.update(characteristic: 0x2A25, bytes: Array("C0680226".utf8)))
        #expect(try info.update(characteristic: 0x2A27, bytes: Array("39044024.10".utf8)))
        #expect(try info.update(characteristic: 0x2A26, bytes: Array("3.0.35".utf8)))
        #expect(try info.update(characteristic: 0x2A28, bytes: Array("1.0".utf8)))
        #expect(try !info.update(characteristic: 0x2A19, bytes: [50]))
        #expect(
            info
                == DeviceInformation(
                    manufacturerName: "Polar Electro Oy", modelNumber: "H10", serialNumber: "C0680226",
                    hardwareRevision: "39044024.10", firmwareRevision: "3.0.35", softwareRevision: "1.0"))
        #expect(info.strings.map(\.field) == DeviceInformationField.allCases)
        #expect(info[.modelNumber] == "H10")
    }
}
