import ByteCoding

/// A decoded characteristic value from a fitness sensor, tagged by what it is.
///
/// ``decode(characteristic:bytes:)`` is the single entry point that turns notification or read
/// bytes into values, so that a live GATT client, a simulated peripheral and a fixture replayer
/// all share one decoding path. A characteristic this package does not know becomes
/// ``unrecognized(characteristic:bytes:)`` (not an error: a sensor may expose anything), and
/// ``encode()`` gives back the bytes, so every payload round-trips.
///
/// Bluetooth HRS 1.0, CPS 1.1, CSCS 1.0, RSCS 1.0, FTMS 1.0, BAS 1.0, DIS 1.1.
public enum SensorPayload: Hashable, Sendable {
    case heartRateMeasurement(HeartRateMeasurement)
    case bodySensorLocation(BodySensorLocation)
    case cyclingPowerMeasurement(CyclingPowerMeasurement)
    case cyclingPowerFeature(CyclingPowerFeature)
    case cscMeasurement(CSCMeasurement)
    case cscFeature(CSCFeature)
    case sensorLocation(SensorLocation)
    case batteryLevel(BatteryLevel)
    case deviceInformation(DeviceInformationString)
    case rscMeasurement(RSCMeasurement)
    case rscFeature(RSCFeature)
    case fitnessMachineFeature(FitnessMachineFeature)
    case indoorBikeData(IndoorBikeData)
    case treadmillData(TreadmillData)
    case rowerData(RowerData)
    case crossTrainerData(CrossTrainerData)
    case trainingStatus(TrainingStatus)
    case supportedSpeedRange(SupportedSpeedRange)
    case supportedInclinationRange(SupportedInclinationRange)
    case supportedResistanceLevelRange(SupportedResistanceLevelRange)
    case supportedPowerRange(SupportedPowerRange)
    /// A control point indication: the machine's answer to a request.
    case fitnessMachineControlPointResponse(FitnessMachineControlPoint.Response)
    case fitnessMachineStatus(FitnessMachineStatus)
    case unrecognized(characteristic: UInt16, bytes: [UInt8])

    /// The characteristics ``decode(characteristic:bytes:)`` understands.
    public static let supportedCharacteristics: [UInt16] =
        [
            HeartRateMeasurement.characteristicUUID,
            BodySensorLocation.characteristicUUID,
            CyclingPowerMeasurement.characteristicUUID,
            CyclingPowerFeature.characteristicUUID,
            CSCMeasurement.characteristicUUID,
            CSCFeature.characteristicUUID,
            SensorLocation.characteristicUUID,
            BatteryLevel.characteristicUUID,
            RSCMeasurement.characteristicUUID,
            RSCFeature.characteristicUUID,
            FitnessMachineFeature.characteristicUUID,
            IndoorBikeData.characteristicUUID,
            TreadmillData.characteristicUUID,
            RowerData.characteristicUUID,
            CrossTrainerData.characteristicUUID,
            TrainingStatus.characteristicUUID,
            SupportedSpeedRange.characteristicUUID,
            SupportedInclinationRange.characteristicUUID,
            SupportedResistanceLevelRange.characteristicUUID,
            SupportedPowerRange.characteristicUUID,
            FitnessMachineControlPoint.Response.characteristicUUID,
            FitnessMachineStatus.characteristicUUID,
        ] + DeviceInformationField.allCases.map(\.characteristicUUID)

    /// Decodes the value of a characteristic.
    ///
    /// - Parameters:
    ///   - characteristic: The characteristic's 16-bit assigned number.
    ///   - bytes: The attribute value (notification payload or read response).
    /// - Returns: The decoded value, or ``unrecognized(characteristic:bytes:)``.
    /// - Throws: ``DecodeError`` when a known characteristic's bytes are malformed.
    public static func decode(characteristic: UInt16, bytes: [UInt8]) throws(DecodeError) -> SensorPayload {
        switch characteristic {
        case HeartRateMeasurement.characteristicUUID:
            return .heartRateMeasurement(try HeartRateMeasurement(bytes: bytes))
        case BodySensorLocation.characteristicUUID:
            return .bodySensorLocation(try BodySensorLocation(bytes: bytes))
        case CyclingPowerMeasurement.characteristicUUID:
            return .cyclingPowerMeasurement(try CyclingPowerMeasurement(bytes: bytes))
        case CyclingPowerFeature.characteristicUUID:
            return .cyclingPowerFeature(try CyclingPowerFeature(bytes: bytes))
        case CSCMeasurement.characteristicUUID:
            return .cscMeasurement(try CSCMeasurement(bytes: bytes))
        case CSCFeature.characteristicUUID:
            return .cscFeature(try CSCFeature(bytes: bytes))
        case SensorLocation.characteristicUUID:
            return .sensorLocation(try SensorLocation(bytes: bytes))
        case BatteryLevel.characteristicUUID:
            return .batteryLevel(try BatteryLevel(bytes: bytes))
        case RSCMeasurement.characteristicUUID: return .rscMeasurement(try RSCMeasurement(bytes: bytes))
        case RSCFeature.characteristicUUID: return .rscFeature(try RSCFeature(bytes: bytes))
        case FitnessMachineFeature.characteristicUUID:
            return .fitnessMachineFeature(try FitnessMachineFeature(bytes: bytes))
        case IndoorBikeData.characteristicUUID: return .indoorBikeData(try IndoorBikeData(bytes: bytes))
        case TreadmillData.characteristicUUID: return .treadmillData(try TreadmillData(bytes: bytes))
        case RowerData.characteristicUUID: return .rowerData(try RowerData(bytes: bytes))
        case CrossTrainerData.characteristicUUID: return .crossTrainerData(try CrossTrainerData(bytes: bytes))
        case TrainingStatus.characteristicUUID: return .trainingStatus(try TrainingStatus(bytes: bytes))
        case SupportedSpeedRange.characteristicUUID: return .supportedSpeedRange(try SupportedSpeedRange(bytes: bytes))
        case SupportedInclinationRange.characteristicUUID:
            return .supportedInclinationRange(try SupportedInclinationRange(bytes: bytes))
        case SupportedResistanceLevelRange.characteristicUUID:
            return .supportedResistanceLevelRange(try SupportedResistanceLevelRange(bytes: bytes))
        case SupportedPowerRange.characteristicUUID: return .supportedPowerRange(try SupportedPowerRange(bytes: bytes))
        case FitnessMachineControlPoint.Response.characteristicUUID:
            return .fitnessMachineControlPointResponse(try FitnessMachineControlPoint.Response(bytes: bytes))
        case FitnessMachineStatus.characteristicUUID:
            return .fitnessMachineStatus(try FitnessMachineStatus(bytes: bytes))
        default:
            if let field = DeviceInformationField(rawValue: characteristic) {
                return .deviceInformation(try DeviceInformationString(field: field, bytes: bytes))
            }
            return .unrecognized(characteristic: characteristic, bytes: bytes)
        }
    }

    /// The characteristic this value belongs to.
    public var characteristic: UInt16 {
        switch self {
        case .heartRateMeasurement: HeartRateMeasurement.characteristicUUID
        case .bodySensorLocation: BodySensorLocation.characteristicUUID
        case .cyclingPowerMeasurement: CyclingPowerMeasurement.characteristicUUID
        case .cyclingPowerFeature: CyclingPowerFeature.characteristicUUID
        case .cscMeasurement: CSCMeasurement.characteristicUUID
        case .cscFeature: CSCFeature.characteristicUUID
        case .sensorLocation: SensorLocation.characteristicUUID
        case .batteryLevel: BatteryLevel.characteristicUUID
        case .deviceInformation(let string): string.field.characteristicUUID
        case .rscMeasurement: RSCMeasurement.characteristicUUID
        case .rscFeature: RSCFeature.characteristicUUID
        case .fitnessMachineFeature: FitnessMachineFeature.characteristicUUID
        case .indoorBikeData: IndoorBikeData.characteristicUUID
        case .treadmillData: TreadmillData.characteristicUUID
        case .rowerData: RowerData.characteristicUUID
        case .crossTrainerData: CrossTrainerData.characteristicUUID
        case .trainingStatus: TrainingStatus.characteristicUUID
        case .supportedSpeedRange: SupportedSpeedRange.characteristicUUID
        case .supportedInclinationRange: SupportedInclinationRange.characteristicUUID
        case .supportedResistanceLevelRange: SupportedResistanceLevelRange.characteristicUUID
        case .supportedPowerRange: SupportedPowerRange.characteristicUUID
        case .fitnessMachineControlPointResponse: FitnessMachineControlPoint.Response.characteristicUUID
        case .fitnessMachineStatus: FitnessMachineStatus.characteristicUUID
        case .unrecognized(let characteristic, _): characteristic
        }
    }

    /// The attribute value bytes, in canonical form.
    public func encode() -> [UInt8] {
        switch self {
        case .heartRateMeasurement(let value): value.encode()
        case .bodySensorLocation(let value): value.encode()
        case .cyclingPowerMeasurement(let value): value.encode()
        case .cyclingPowerFeature(let value): value.encode()
        case .cscMeasurement(let value): value.encode()
        case .cscFeature(let value): value.encode()
        case .sensorLocation(let value): value.encode()
        case .batteryLevel(let value): value.encode()
        case .deviceInformation(let value): value.encode()
        case .rscMeasurement(let value): value.encode()
        case .rscFeature(let value): value.encode()
        case .fitnessMachineFeature(let value): value.encode()
        case .indoorBikeData(let value): value.encode()
        case .treadmillData(let value): value.encode()
        case .rowerData(let value): value.encode()
        case .crossTrainerData(let value): value.encode()
        case .trainingStatus(let value): value.encode()
        case .supportedSpeedRange(let value): value.encode()
        case .supportedInclinationRange(let value): value.encode()
        case .supportedResistanceLevelRange(let value): value.encode()
        case .supportedPowerRange(let value): value.encode()
        case .fitnessMachineControlPointResponse(let value): value.encode()
        case .fitnessMachineStatus(let value): value.encode()
        case .unrecognized(_, let bytes): bytes
        }
    }
}
