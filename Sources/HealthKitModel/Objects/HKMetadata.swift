import Foundation

// HealthKit's metadata keys used by workouts and their samples (HealthKit: HKMetadataKey…; raw strings as Apple's).
public let HKMetadataKeyDeviceSerialNumber = "HKDeviceSerialNumber"
public let HKMetadataKeyBodyTemperatureSensorLocation = "HKBodyTemperatureSensorLocation"
public let HKMetadataKeyHeartRateSensorLocation = "HKHeartRateSensorLocation"
public let HKMetadataKeyHeartRateMotionContext = "HKMetadataKeyHeartRateMotionContext"
public let HKMetadataKeyUDIProductionIdentifier = "HKUDIProductionIdentifier"
public let HKMetadataKeyDigitalSignature = "HKDigitalSignature"
public let HKMetadataKeyExternalUUID = "HKExternalUUID"
public let HKMetadataKeySyncIdentifier = "HKMetadataKeySyncIdentifier"
public let HKMetadataKeySyncVersion = "HKMetadataKeySyncVersion"
public let HKMetadataKeyTimeZone = "HKTimeZone"
public let HKMetadataKeyDeviceName = "HKDeviceName"
public let HKMetadataKeyDeviceManufacturerName = "HKDeviceManufacturerName"
public let HKMetadataKeyWasTakenInLab = "HKWasTakenInLab"
public let HKMetadataKeyWasUserEntered = "HKWasUserEntered"
public let HKMetadataKeyWorkoutBrandName = "HKWorkoutBrandName"
public let HKMetadataKeyGroupFitness = "HKGroupFitness"
public let HKMetadataKeyIndoorWorkout = "HKIndoorWorkout"
public let HKMetadataKeyCoachedWorkout = "HKCoachedWorkout"
public let HKMetadataKeyWeatherCondition = "HKWeatherCondition"
public let HKMetadataKeyWeatherTemperature = "HKWeatherTemperature"
public let HKMetadataKeyWeatherHumidity = "HKWeatherHumidity"
public let HKMetadataKeyLapLength = "HKLapLength"
public let HKMetadataKeySwimmingLocationType = "HKSwimmingLocationType"
public let HKMetadataKeySwimmingStrokeStyle = "HKSwimmingStrokeStyle"
public let HKMetadataKeyAverageSpeed = "HKAverageSpeed"
public let HKMetadataKeyMaximumSpeed = "HKMaximumSpeed"
public let HKMetadataKeyAlpineSlopeGrade = "HKAlpineSlopeGrade"
public let HKMetadataKeyElevationAscended = "HKElevationAscended"
public let HKMetadataKeyElevationDescended = "HKElevationDescended"
public let HKMetadataKeyFitnessMachineDuration = "HKFitnessMachineDuration"
public let HKMetadataKeyIndoorBikeDistance = "HKIndoorBikeDistance"
public let HKMetadataKeyCrossTrainerDistance = "HKCrossTrainerDistance"
public let HKMetadataKeyHeartRateEventThreshold = "HKHeartRateEventThreshold"
public let HKMetadataKeyAverageMETs = "HKAverageMETs"
public let HKMetadataKeyActivityType = "HKActivityType"
public let HKMetadataKeyPhysicalEffortEstimationType = "HKPhysicalEffortEstimationType"
public let HKMetadataKeyMaximumLightIntensity = "HKMetadataKeyMaximumLightIntensity"
public let HKMetadataKeySessionEstimate = "HKMetadataKeySessionEstimate"

/// How metadata dictionaries are checked and written to the store.
///
/// HealthKit accepts `String`, `NSNumber` (any number or `Bool`), `Date` and `HKQuantity` values. They are
/// stored as a JSON object whose values are tagged one-key objects, so they read back with the same types:
/// `{"s": "text"}`, `{"i": 3}`, `{"n": 2.5}`, `{"b": true}`, `{"d": 7.3e8}` (seconds since 2001-01-01),
/// `{"q": [72, "count/min"]}`.
package enum MetadataCoding {
    package static func validate(_ metadata: [String: Any]?) throws {
        guard let metadata else { return }
        for (key, value) in metadata {
            guard encodeValue(value) != nil else {
                throw HKError(
                    .errorInvalidArgument,
                    "Metadata value for key '\(key)' has type \(type(of: value)); HealthKit accepts String, numbers, Bool, Date and HKQuantity."
                )
            }
        }
    }

    private static func encodeValue(_ value: Any) -> [String: Any]? {
        switch value {
        case let v as String: ["s": v]
        case let v as Bool: ["b": v]
        case let v as Int: ["i": v]
        case let v as Int64: ["i": Int(v)]
        case let v as Int32: ["i": Int(v)]
        case let v as UInt8: ["i": Int(v)]
        case let v as UInt16: ["i": Int(v)]
        case let v as UInt32: ["i": Int(v)]
        case let v as Double: v.isFinite ? ["n": v] : nil
        case let v as Float: v.isFinite ? ["n": Double(v)] : nil
        case let v as Date: ["d": v.timeIntervalSinceReferenceDate]
        case let v as HKQuantity: ["q": [v.doubleValue(for: v.unit), v.unit.unitString]]
        case let v as NSNumber: ["n": v.doubleValue]
        default: nil
        }
    }

    /// The JSON text for a metadata dictionary, or nil for none.
    package static func encode(_ metadata: [String: Any]?) throws -> String? {
        guard let metadata, !metadata.isEmpty else { return nil }
        var object: [String: Any] = [:]
        for (key, value) in metadata {
            guard let encoded = encodeValue(value) else {
                throw HKError(.errorInvalidArgument, "Metadata value for key '\(key)' cannot be stored.")
            }
            object[key] = encoded
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// The metadata dictionary from stored JSON text. Throws on a damaged value rather than dropping it.
    package static func decode(_ text: String?) throws -> [String: Any]? {
        guard let text, let data = text.data(using: .utf8) else { return nil }
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw HKError(.errorDatabaseInaccessible, "Stored metadata is not a JSON object.")
        }
        var result: [String: Any] = [:]
        for (key, tagged) in object {
            guard let tagged = tagged as? [String: Any], let (tag, value) = tagged.first else {
                throw HKError(.errorDatabaseInaccessible, "Stored metadata value for '\(key)' is damaged.")
            }
            switch (tag, value) {
            case ("s", let v as String): result[key] = v
            case ("b", let v as Bool): result[key] = v
            case ("b", let v as NSNumber): result[key] = v.boolValue
            case ("i", let v as NSNumber): result[key] = v.intValue
            case ("n", let v as NSNumber): result[key] = v.doubleValue
            case ("d", let v as NSNumber): result[key] = Date(timeIntervalSinceReferenceDate: v.doubleValue)
            case ("q", let v as [Any]):
                guard v.count == 2, let number = v[0] as? NSNumber, let unitString = v[1] as? String,
                    let unit = try? HKUnit.parse(unitString)
                else {
                    throw HKError(.errorDatabaseInaccessible, "Stored metadata quantity for '\(key)' is damaged.")
                }
                result[key] = HKQuantity(unit: unit, doubleValue: number.doubleValue)
            default:
                throw HKError(
                    .errorDatabaseInaccessible, "Stored metadata value for '\(key)' has unknown tag '\(tag)'.")
            }
        }
        return result.isEmpty ? nil : result
    }
}
