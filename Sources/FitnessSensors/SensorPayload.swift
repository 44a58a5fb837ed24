import ByteCoding

/// A decoded characteristic value from a fitness sensor, tagged by what it is.
///
/// ``decode(characteristic:bytes:)`` is the single entry point that turns notification or read
/// bytes into values, so that a live GATT client, a simulated peripheral and a fixture replayer
/// all share one decoding path. A characteristic this package does not know becomes
/// ``unrecognized(characteristic:bytes:)`` (not an error: a sensor may expose anything), and
/// ``encode()`` gives back the bytes, so every payload round-trips.
///
/// Bluetooth HRS 1.0, CPS 1.1, CSCS 1.0, BAS 1.0, DIS 1.1.
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
    case unrecognized(characteristic: UInt16, bytes: [UInt8])

    /// The characteristics ``decode(characteristic:bytes:)`` understands.
    public static let supportedCharacteristics: [UInt16] = [
        HeartRateMeasurement.characteristicUUID,
        BodySensorLocation.characteristicUUID,
        CyclingPowerMeasurement.characteristicUUID,
        CyclingPowerFeature.characteristicUUID,
        CSCMeasurement.characteristicUUID,
        CSCFeature.characteristicUUID,
        SensorLocation.characteristicUUID,
        BatteryLevel.characteristicUUID,
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
        case .unrecognized(_, let bytes): bytes
        }
    }
}
