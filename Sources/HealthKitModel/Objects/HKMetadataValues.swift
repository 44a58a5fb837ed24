import Foundation

// The values of HealthKit's enumerated metadata keys, with Apple's raw values (HealthKit: HKMetadata.h). Store them
// as `NSNumber`s of the raw value, as HealthKit does: `[HKMetadataKeyHeartRateSensorLocation: HKHeartRateSensorLocation.chest.rawValue]`.

/// Where a heart-rate sensor was worn. HealthKit: HKHeartRateSensorLocation.
public enum HKHeartRateSensorLocation: Int, Sendable, Hashable, CaseIterable {
    case other = 0, chest, wrist, finger, hand, earLobe, foot
}

/// What the person was doing when a heart rate was measured. HealthKit: HKHeartRateMotionContext.
public enum HKHeartRateMotionContext: Int, Sendable, Hashable, CaseIterable {
    case notSet = 0, sedentary, active
}

/// What the person was doing when a sample was taken. HealthKit: HKUserMotionContext.
public enum HKUserMotionContext: Int, Sendable, Hashable, CaseIterable {
    case notSet = 0, stationary, active
}

/// A swimming stroke. HealthKit: HKSwimmingStrokeStyle.
public enum HKSwimmingStrokeStyle: Int, Sendable, Hashable, CaseIterable {
    case unknown = 0, mixed, freestyle, backstroke, breaststroke, butterfly, kickboard
}

/// Fresh or salt water. HealthKit: HKWaterSalinity.
public enum HKWaterSalinity: Int, Sendable, Hashable, CaseIterable {
    case freshWater = 1, saltWater
}

/// How an FTP was found. HealthKit: HKCyclingFunctionalThresholdPowerTestType.
public enum HKCyclingFunctionalThresholdPowerTestType: Int, Sendable, Hashable, CaseIterable {
    case maxExercise60Minute = 1, maxExercise20Minute, rampTest, predictionExercise

    /// OpenHealthKit's former spelling; kept one release.
    @available(*, deprecated, renamed: "maxExercise60Minute")
    public static var maxExercise60Minutes: Self { .maxExercise60Minute }
    /// OpenHealthKit's former spelling; kept one release.
    @available(*, deprecated, renamed: "maxExercise20Minute")
    public static var maxExercise20Minutes: Self { .maxExercise20Minute }
}

/// How a physical-effort sample was estimated. HealthKit: HKPhysicalEffortEstimationType.
public enum HKPhysicalEffortEstimationType: Int, Sendable, Hashable, CaseIterable {
    case activityLookup = 1, deviceSensed
}

/// How a heart-rate recovery was measured. HealthKit: HKHeartRateRecoveryTestType.
public enum HKHeartRateRecoveryTestType: Int, Sendable, Hashable, CaseIterable {
    case maxExercise = 1, predictionSubMaxExercise, predictionNonExercise
}

/// The weather during an outdoor workout. HealthKit: HKWeatherCondition.
public enum HKWeatherCondition: Int, Sendable, Hashable, CaseIterable {
    case none = 0, clear, fair, partlyCloudy, mostlyCloudy, cloudy, foggy, haze, windy, blustery, smoky, dust, snow,
        hail, sleet, freezingDrizzle, freezingRain, mixedRainAndHail, mixedRainAndSnow, mixedRainAndSleet,
        mixedSnowAndSleet, drizzle, scatteredShowers, showers, thunderstorms, tropicalStorm, hurricane, tornado
}

/// The key of the salinity of the water of a swim or dive. HealthKit: HKMetadataKeyWaterSalinity.
public let HKMetadataKeyWaterSalinity = "HKWaterSalinity"
/// The key of the way an FTP was tested. HealthKit: HKMetadataKeyCyclingFunctionalThresholdPowerTestType.
public let HKMetadataKeyCyclingFunctionalThresholdPowerTestType = "HKCyclingFunctionalThresholdPowerTestType"
/// The key of the motion context of a sample. HealthKit: HKMetadataKeyUserMotionContext.
public let HKMetadataKeyUserMotionContext = "HKUserMotionContext"
/// The key of how a heart-rate recovery was tested. HealthKit: HKMetadataKeyHeartRateRecoveryTestType.
public let HKMetadataKeyHeartRateRecoveryTestType = "HKHeartRateRecoveryTestType"
/// The key of the activity of a heart-rate recovery. HealthKit: HKMetadataKeyHeartRateRecoveryActivityType.
public let HKMetadataKeyHeartRateRecoveryActivityType = "HKHeartRateRecoveryActivityType"
/// The key of the duration of a heart-rate recovery activity. HealthKit: HKMetadataKeyHeartRateRecoveryActivityDuration.
public let HKMetadataKeyHeartRateRecoveryActivityDuration = "HKHeartRateRecoveryActivityDuration"
/// The key of the maximum heart rate of a heart-rate recovery. HealthKit: HKMetadataKeyHeartRateRecoveryMaxObservedRecoveryHeartRate.
public let HKMetadataKeyHeartRateRecoveryMaxObservedRecoveryHeartRate =
    "HKHeartRateRecoveryMaxObservedRecoveryHeartRate"
/// The key of whether a device was calibrated by Apple. HealthKit: HKMetadataKeyAppleDeviceCalibrated.
public let HKMetadataKeyAppleDeviceCalibrated = "HKMetadataKeyAppleDeviceCalibrated"
/// The key of a workout's fitness-machine session. HealthKit: HKMetadataKeyAppleFitnessPlusSession.
public let HKMetadataKeyAppleFitnessPlusSession = "HKMetadataKeyAppleFitnessPlusSession"

/// How a VO2 max value was found (the value of `HKMetadataKeyVO2MaxTestType`). Raw values as HealthKit's.
/// HealthKit: HKVO2MaxTestType.
public enum HKVO2MaxTestType: Int, Sendable, Hashable, CaseIterable {
    /// Measured in a maximal exercise test (gas exchange).
    case maxExercise = 1
    /// Predicted from a submaximal exercise test.
    case predictionSubMaxExercise
    /// Predicted without exercise (questionnaire, resting data).
    case predictionNonExercise
    /// Predicted from a step test (HealthKit 26).
    case predictionStepTest
}

/// The key of how a VO2 max sample was tested (an `HKVO2MaxTestType` raw value). HealthKit: HKMetadataKeyVO2MaxTestType.
public let HKMetadataKeyVO2MaxTestType = "HKVO2MaxTestType"
/// The key of a VO2 max value attached to a sample (a quantity in ml/(kg·min)). HealthKit: HKMetadataKeyVO2MaxValue.
public let HKMetadataKeyVO2MaxValue = "HKVO2MaxValue"
/// The key of a swimming lap's SWOLF score (strokes plus seconds per length; a number). HealthKit: HKMetadataKeySWOLFScore.
public let HKMetadataKeySWOLFScore = "HKSWOLFScore"
/// The key of the barometric pressure during a sample (a pressure quantity). HealthKit: HKMetadataKeyBarometricPressure.
public let HKMetadataKeyBarometricPressure = "HKMetadataKeyBarometricPressure"
/// The key of the date of the earliest data an estimate used. HealthKit: HKMetadataKeyDateOfEarliestDataUsedForEstimate.
public let HKMetadataKeyDateOfEarliestDataUsedForEstimate = "HKDateOfEarliestDataUsedForEstimate"
/// The key of the version of the algorithm that made an estimate. HealthKit: HKMetadataKeyAlgorithmVersion.
public let HKMetadataKeyAlgorithmVersion = "HKAlgorithmVersion"
/// The key saying a quantity was raised to the lowest value its type allows. HealthKit:
/// HKMetadataKeyQuantityClampedToLowerBound.
public let HKMetadataKeyQuantityClampedToLowerBound = "HKQuantityClampedToLowerBound"
/// The key saying a quantity was lowered to the highest value its type allows. HealthKit:
/// HKMetadataKeyQuantityClampedToUpperBound.
public let HKMetadataKeyQuantityClampedToUpperBound = "HKQuantityClampedToUpperBound"
/// The key of a device's unique device identifier (UDI-DI). HealthKit: HKMetadataKeyUDIDeviceIdentifier.
public let HKMetadataKeyUDIDeviceIdentifier = "HKUDIDeviceIdentifier"
/// The key of the Apple Fitness+ catalog entry a workout followed. HealthKit: HKMetadataKeyAppleFitnessPlusCatalogIdentifier.
public let HKMetadataKeyAppleFitnessPlusCatalogIdentifier = "HKMetadataKeyAppleFitnessPlusCatalogIdentifier"
