import FitnessSensors
import Testing

@Suite("SensorPayload dispatcher")
struct SensorPayloadTests {
    @Test func dispatchesByCharacteristic() throws {
        #expect(
            try SensorPayload.decode(characteristic: 0x2A37, bytes: hex("16 4D 16 03"))
                == .heartRateMeasurement(
                    HeartRateMeasurement(heartRate: 77, sensorContact: .detected, rrIntervals: [790])))
        #expect(try SensorPayload.decode(characteristic: 0x2A38, bytes: [1]) == .bodySensorLocation(.chest))
        #expect(
            try SensorPayload.decode(characteristic: 0x2A63, bytes: hex("00 00 28 00"))
                == .cyclingPowerMeasurement(CyclingPowerMeasurement(instantaneousPower: 40)))
        #expect(
            try SensorPayload.decode(characteristic: 0x2A65, bytes: hex("08 00 00 00"))
                == .cyclingPowerFeature(.crankRevolutionDataSupported))
        #expect(
            try SensorPayload.decode(characteristic: 0x2A5B, bytes: hex("02 01 00 00 04"))
                == .cscMeasurement(
                    CSCMeasurement(crankRevolutions: .init(cumulativeRevolutions: 1, lastEventTime: 0x0400))))
        #expect(
            try SensorPayload.decode(characteristic: 0x2A19, bytes: [87]) == .batteryLevel(BatteryLevel(percent: 87)!))
        #expect(
            try SensorPayload.decode(characteristic: 0x2A26, bytes: Array("1.2.3".utf8))
                == .deviceInformation(DeviceInformationString(field: .firmwareRevision, value: "1.2.3")))
        #expect(
            try SensorPayload.decode(characteristic: 0x2A5C, bytes: hex("03 00"))
                == .cscFeature([.wheelRevolutionDataSupported, .crankRevolutionDataSupported]))
        #expect(try SensorPayload.decode(characteristic: 0x2A5D, bytes: [6]) == .sensorLocation(.rightCrank))
        // Temperature (0x2A6E) is not a fitness characteristic here: passed through untouched.
        #expect(
            try SensorPayload.decode(characteristic: 0x2A6E, bytes: [0x10, 0x09])
                == .unrecognized(characteristic: 0x2A6E, bytes: [0x10, 0x09]))
    }

    @Test func errorsPassThrough() {
        #expect(decodeError { _ = try SensorPayload.decode(characteristic: 0x2A19, bytes: [200]) }?.offset == 0)
        #expect(
            decodeError { _ = try SensorPayload.decode(characteristic: 0x2A37, bytes: hex("10 48 00")) }?.offset == 2)
    }

    @Test(arguments: SensorPayload.supportedCharacteristics)
    func characteristicAndEncodeRoundTrip(uuid: UInt16) throws {
        let sample: [UInt16: [UInt8]] = [
            0x2A37: hex("1E 8C 05 00 00 04 00 02"), 0x2A38: [2], 0x2A63: hex("20 00 2d 00 02 00 b8 12"),
            0x2A65: hex("0C 00 00 00"), 0x2A5B: hex("03 C8 00 00 01 06 99 E1 00 45 99"), 0x2A19: [55],
            0x2A5C: hex("07 00"), 0x2A5D: [15],
            // Foot pod and fitness machine characteristics (values from RSCMeasurementTests and FitnessMachineDataTests).
            0x2A53: hex("07 00 03 AC 69 00 39 30 00 00"), 0x2A54: hex("07 00"), 0x2ACC: hex("02 40 00 00 0C 20 00 00"),
            0x2ACD: hex("1C 04 E8 03 10 27 00 32 00 1D 00 0A 00 00 00 3C 00"),
            0x2ACE: hex("08 81 00 E8 03 A0 00 96 00 64 00"),
            0x2AD1: hex("2C 00 38 2A 00 D0 07 00 78 00 96 00"), 0x2AD2: hex("46 00 B8 0B 00 00 B4 00 FA 00"),
            0x2AD3: hex("01 0D 4D 61 6E 75 61 6C"), 0x2AD4: hex("32 00 40 06 0A 00"), 0x2AD5: hex("9C FF 96 00 05 00"),
            0x2AD6: hex("0A 00 C8 00 0A 00"), 0x2AD8: hex("00 00 D0 07 01 00"), 0x2AD9: hex("80 05 01"),
            0x2ADA: hex("08 C8 00"),
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
        #expect(GATTAssignedNumbers.Service.runningSpeedAndCadence == 0x1814)
        #expect(GATTAssignedNumbers.Service.fitnessMachine == 0x1826)
        #expect(RSCMeasurement.characteristicUUID == 0x2A53)
        #expect(IndoorBikeData.characteristicUUID == 0x2AD2)
        #expect(TreadmillData.characteristicUUID == 0x2ACD)
        #expect(RowerData.characteristicUUID == 0x2AD1)
        #expect(CrossTrainerData.characteristicUUID == 0x2ACE)
        #expect(SupportedPowerRange.characteristicUUID == 0x2AD8)
        #expect(FitnessMachineStatus.characteristicUUID == 0x2ADA)
        #expect(Set(SensorPayload.supportedCharacteristics).count == 28)
    }
}
