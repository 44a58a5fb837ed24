import ByteCoding
import FitnessSensors
import Testing

@Suite("RSC Measurement 0x2A53 and RSC Feature 0x2A54")
struct RSCMeasurementTests {
    /// Every field, laid out as RSCS 1.0 §3.1 gives them: flags 0x07 (stride, distance, running), speed 768/256 m/s,
    /// 172 steps/min, stride 105 cm, total 12345 dm.
    @Test func everyField() throws {
        let bytes = hex("07 00 03 AC 69 00 39 30 00 00")
        let m = try RSCMeasurement(bytes: bytes)
        #expect(m.speedMetresPerSecond == 3.0)
        #expect(m.cadence == 172)
        #expect(m.strideLengthMetres == 1.05)
        #expect(m.totalDistanceMetres == 1234.5)
        #expect(m.isRunning)
        #expect(m.encode() == bytes)
    }

    /// The shortest value: flags 0 (walking), speed and cadence only; trailing bytes ignored.
    @Test func walkingSpeedAndCadenceOnly() throws {
        let m = try RSCMeasurement(bytes: hex("00 80 01 6E FF"))
        #expect(m == RSCMeasurement(speed: 0x0180, cadence: 110, isRunning: false))
        #expect(m.encode() == hex("00 80 01 6E"))
    }

    /// A truncated flagged field names it and where it was expected.
    @Test func truncatedTotalDistance() {
        #expect(throws: DecodeError("expected 4 bytes for total distance, found 2", at: 4)) {
            try RSCMeasurement(bytes: hex("02 00 03 AC 39 30"))
        }
        #expect(throws: DecodeError.self) { try RSCMeasurement(bytes: []) }
    }

    @Test func feature() throws {
        let feature = try RSCFeature(bytes: hex("07 00"))
        #expect(
            feature == [
                .strideLengthMeasurementSupported, .totalDistanceMeasurementSupported, .walkingOrRunningStatusSupported,
            ])
        #expect(try SensorPayload.decode(characteristic: 0x2A54, bytes: hex("07 00")) == .rscFeature(feature))
    }
}
