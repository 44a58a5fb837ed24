// libFuzzer targets for the GATT profile decoders, one binary per decoder, chosen at compile time
// with -D (see run.sh). Every input must decode or throw a DecodeError with an offset inside the
// input; every decoded value must re-encode to bytes that decode to the same value (the
// GATTCharacteristicValue contract), and must pass through SensorPayload and the reading
// interpreter (cadence, speed and distance maths) without trapping.
// Fitness machine data go through the interpreter's More Data reassembly too (a part per input).
// Bluetooth HRS 1.0, CPS 1.1, CSCS 1.0, RSCS 1.0, FTMS 1.0, BAS 1.0, DIS 1.1.
import ByteCoding
import FitnessSensors

#if FUZZ_HEART_RATE_MEASUREMENT
typealias Target = HeartRateMeasurement
#elseif FUZZ_CYCLING_POWER_MEASUREMENT
typealias Target = CyclingPowerMeasurement
#elseif FUZZ_CSC_MEASUREMENT
typealias Target = CSCMeasurement
#elseif FUZZ_BATTERY_LEVEL
typealias Target = BatteryLevel
#elseif FUZZ_BODY_SENSOR_LOCATION
typealias Target = BodySensorLocation
#elseif FUZZ_SENSOR_LOCATION
typealias Target = SensorLocation
#elseif FUZZ_CYCLING_POWER_FEATURE
typealias Target = CyclingPowerFeature
#elseif FUZZ_CSC_FEATURE
typealias Target = CSCFeature
#elseif FUZZ_RSC_MEASUREMENT
typealias Target = RSCMeasurement
#elseif FUZZ_INDOOR_BIKE_DATA
typealias Target = IndoorBikeData
#elseif FUZZ_TREADMILL_DATA
typealias Target = TreadmillData
#elseif FUZZ_ROWER_DATA
typealias Target = RowerData
#elseif FUZZ_CROSS_TRAINER_DATA
typealias Target = CrossTrainerData
#elseif FUZZ_SUPPORTED_POWER_RANGE
typealias Target = SupportedPowerRange
#elseif FUZZ_FITNESS_MACHINE_STATUS
typealias Target = FitnessMachineStatus
#elseif FUZZ_CONTROL_POINT_RESPONSE
typealias Target = FitnessMachineControlPoint.Response
#elseif FUZZ_TRAINING_STATUS
typealias Target = TrainingStatus
#endif

nonisolated(unsafe) var interpreter = SensorReadingInterpreter()
nonisolated(unsafe) var arrival = 0.0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    #if FUZZ_DEVICE_INFORMATION
    // The first byte picks the field; the rest is the string.
    guard let first = bytes.first else { return 0 }
    let fields = DeviceInformationField.allCases
    let field = fields[Int(first) % fields.count]
    do throws(DecodeError) {
        let value = try DeviceInformationString(field: field, bytes: Array(bytes.dropFirst()))
        guard try DeviceInformationString(field: field, bytes: value.encode()) == value else {
            fatalError("round trip")
        }
    } catch {
        precondition(error.offset >= 0 && error.offset <= size, "offset \(error.offset) outside \(size) bytes")
    }
    #else
    let value: Target
    do {
        value = try Target(bytes: bytes)
    } catch {
        precondition(error.offset >= 0 && error.offset <= size, "offset \(error.offset) outside \(size) bytes")
        return 0
    }
    let encoded = value.encode()
    guard let again = try? Target(bytes: encoded), again == value else {
        fatalError("\(Target.self) round trip changed \(bytes) into \(encoded)")
    }
    guard let payload = try? SensorPayload.decode(characteristic: Target.characteristicUUID, bytes: bytes) else {
        fatalError("SensorPayload disagrees with \(Target.self) on \(bytes)")
    }
    arrival += Double(bytes.first ?? 0) / 64
    _ = try? interpreter.readings(fromValue: bytes, of: Target.characteristicUUID, at: arrival)
    _ = payload
    #endif
    return 0
}
