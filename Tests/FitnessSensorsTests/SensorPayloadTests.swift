import FitnessSensors
import Testing

@Suite("SensorPayload dispatcher")
struct SensorPayloadTests {
    @Test func dispatchesByCharacteristic() throws {
        #expect(try SensorPayload.decode(characteristic: 0x2A37, bytes: hex("16 4D 16 03"))
            == .heartRateMeasurement(HeartRateMeasurement(heartRate: 77, sensorContact: .detected, rrIntervals: [790])))
        #expect(try SensorPayload.decode(characteristic: 0x2A38, bytes: [1]) == .bodySensorLocation(.chest))
        #expect(try SensorPayload.decode(characteristic: 0x2A63, bytes: hex("00 00 28 00"))
            == .cyclingPowerMeasurement(CyclingPowerMeasurement(instantaneousPower: 40)))
        #expect(try SensorPayload.decode(characteristic: 0x2A65, bytes: hex("08 00 00 00"))
            == .cyclingPowerFeature(.crankRevolutionDataSupported))
        #expect(try SensorPayload.decode(characteristic: 0x2A5B, bytes: hex("02 01 00 00 04"))
            == .cscMeasurement(CSCMeasurement(crankRevolutions: .init(cumulativeRevolutions: 1, lastEventTime: 0x0400))))
        #expect(try SensorPayload.decode(characteristic: 0x2A19, bytes: [87]) == .batteryLevel(BatteryLevel(percent: 87)!))
        #expect(try SensorPayload.decode(characteristic: 0x2A26, bytes: Array("1.2.3".utf8))
            == .deviceInformation(DeviceInformationString(field: .firmwareRevision, value: "1.2.3")))
        #expect(try SensorPayload.decode(characteristic: 0x2A5C, bytes: hex("03 00"))
            == .cscFeature([.wheelRevolutionDataSupported, .crankRevolutionDataSupported]))
        #expect(try SensorPayload.decode(characteristic: 0x2A5D, bytes: [6]) == .sensorLocation(.rightCrank))
        // Temperature (0x2A6E) is not a fitness characteristic here: passed through untouched.
        #expect(try SensorPayload.decode(characteristic: 0x2A6E, bytes: [0x10, 0x09])
            == .unrecognized(characteristic: 0x2A6E, bytes: [0x10, 0x09]))
    }

    @Test func errorsPassThrough() {
        #expect(decodeError { _ = try SensorPayload.decode(characteristic: 0x2A19, bytes: [200]) }?.offset == 0)
        #expect(decodeError { _ = try SensorPayload.decode(characteristic: 0x2A37, bytes: hex("10 48 00")) }?.offset == 2)
    }

    @Test(arguments: SensorPayload.supportedCharacteristics)
    func characteristicAndEncodeRoundTrip(uuid: UInt16) throws {
        let sample: [UInt16: [UInt8]] = [
            0x2A37: hex("1E 8C 05 00 00 04 00 02"), 0x2A38: [2], 0x2A63: hex("20 00 2d 00 02 00 b8 12"),
            0x2A65: hex("0C 00 00 00"), 0x2A5B: hex("03 C8 00 00 01 06 99 E1 00 45 99"), 0x2A19: [55],
            0x2A5C: hex("07 00"), 0x2A5D: [15],
        ]
        let bytes = sample[uuid] ?? Array("OpenHealthKit".utf8)
        let payload = try SensorPayload.decode(characteristic: uuid, bytes: bytes)
        #expect(payload.characteristic == uuid)
        #expect(payload.encode() == bytes)
        #expect(try SensorPayload.decode(characteristic: uuid, bytes: payload.encode()) == payload)
    }

    @Test func assignedNumbers() {
        #expect(GATTAssignedNumbers.Service.heartRate == 0x180D)
        #expect(GATTAssignedNumbers.Service.cyclingPower == 0x1818)
        #expect(GATTAssignedNumbers.Service.cyclingSpeedAndCadence == 0x1816)
        #expect(GATTAssignedNumbers.Service.battery == 0x180F)
        #expect(GATTAssignedNumbers.Service.deviceInformation == 0x180A)
        #expect(HeartRateMeasurement.characteristicUUID == 0x2A37)
        #expect(CyclingPowerMeasurement.characteristicUUID == 0x2A63)
        #expect(CSCMeasurement.characteristicUUID == 0x2A5B)
        #expect(Set(SensorPayload.supportedCharacteristics).count == 14)
    }
}
