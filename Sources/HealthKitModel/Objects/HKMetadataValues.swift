import Foundation

// The values of HealthKit's enumerated metadata keys, with Apple's raw values (HealthKit: HKMetadata.h). Store them
// as `NSNumber`s of the raw value, as HealthKit does: `[HKMetadataKeyHeartRateSensorLocation: HKHeartRateSensorLocation.chest.rawValue]`.

// The enumerations themselves are generated from HealthKit's HKMetadataEnums.h (`HealthKitCatalog+Generated.swift`).

extension HKCyclingFunctionalThresholdPowerTestType {
    /// OpenHealthKit's former spelling; kept one release.
    @available(*, deprecated, renamed: "maxExercise60Minute")
    public static var maxExercise60Minutes: Self { .maxExercise60Minute }
    /// OpenHealthKit's former spelling; kept one release.
    @available(*, deprecated, renamed: "maxExercise20Minute")
    public static var maxExercise20Minutes: Self { .maxExercise20Minute }
}

/// The key of the salinity of the water of a swim or dive. HealthKit: HKMetadataKeyWaterSalinity.
public let HKMetadataKeyWaterSalinity = "HKMetadataKeyWaterSalinity"
/// The key of the way an FTP was tested. HealthKit: HKMetadataKeyCyclingFunctionalThresholdPowerTestType (whose
/// string doubles "Cycling", as HealthKit's own metadata validation spells it).
public let HKMetadataKeyCyclingFunctionalThresholdPowerTestType =
    "HKCyclingCyclingFunctionalThresholdPowerTestType"
/// The key of the motion context of a sample. HealthKit: HKMetadataKeyUserMotionContext.
public let HKMetadataKeyUserMotionContext = "HKMetadataKeyUserMotionContext"
/// The key of how a heart-rate recovery was tested. HealthKit: HKMetadataKeyHeartRateRecoveryTestType.
public let HKMetadataKeyHeartRateRecoveryTestType = "HKMetadataKeyHeartRateRecoveryTestType"
/// The key of the activity of a heart-rate recovery. HealthKit: HKMetadataKeyHeartRateRecoveryActivityType.
public let HKMetadataKeyHeartRateRecoveryActivityType = "HKMetadataKeyHeartRateRecoveryActivityType"
/// The key of the duration of a heart-rate recovery activity. HealthKit: HKMetadataKeyHeartRateRecoveryActivityDuration.
public let HKMetadataKeyHeartRateRecoveryActivityDuration = "HKMetadataKeyHeartRateRecoveryActivityDuration"
/// The key of the maximum heart rate of a heart-rate recovery. HealthKit: HKMetadataKeyHeartRateRecoveryMaxObservedRecoveryHeartRate.
public let HKMetadataKeyHeartRateRecoveryMaxObservedRecoveryHeartRate =
    "HKMetadataKeyHeartRateRecoveryMaxObservedRecoveryHeartRate"
/// The key of whether a device was calibrated by Apple. HealthKit: HKMetadataKeyAppleDeviceCalibrated.
public let HKMetadataKeyAppleDeviceCalibrated = "HKMetadataKeyAppleDeviceCalibrated"
/// The key of a workout's fitness-machine session. HealthKit: HKMetadataKeyAppleFitnessPlusSession.
public let HKMetadataKeyAppleFitnessPlusSession = "HKMetadataKeyAppleFitnessPlusSession"

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

// Keys of the whole catalogue's types. Raw values as HealthKit's (its metadata validation lists them).

/// The key saying a menstrual-flow sample starts a cycle (a Boolean `NSNumber`); HealthKit requires it on
/// `menstrualFlow` samples. HealthKit: HKMetadataKeyMenstrualCycleStart.
public let HKMetadataKeyMenstrualCycleStart = "HKMenstrualCycleStart"
/// The key saying protection was used in a sexual-activity sample (a Boolean `NSNumber`).
/// HealthKit: HKMetadataKeySexualActivityProtectionUsed.
public let HKMetadataKeySexualActivityProtectionUsed = "HKSexualActivityProtectionUsed"
/// The key of how a blood-glucose reading relates to a meal (an `HKBloodGlucoseMealTime` raw value).
/// HealthKit: HKMetadataKeyBloodGlucoseMealTime.
public let HKMetadataKeyBloodGlucoseMealTime = "HKBloodGlucoseMealTime"
/// The key of why insulin was delivered (an `HKInsulinDeliveryReason` raw value); HealthKit requires it on
/// `insulinDelivery` samples. HealthKit: HKMetadataKeyInsulinDeliveryReason.
public let HKMetadataKeyInsulinDeliveryReason = "HKInsulinDeliveryReason"
/// The key of the side a device was worn on while walking (an `HKDevicePlacementSide` raw value).
/// HealthKit: HKMetadataKeyDevicePlacementSide.
public let HKMetadataKeyDevicePlacementSide = "HKMetadataKeyDevicePlacementSide"
/// The key of the food a food correlation or dietary sample is about (a string). HealthKit: HKMetadataKeyFoodType.
public let HKMetadataKeyFoodType = "HKFoodType"
/// The key of a lab result's reference range's lower limit. HealthKit: HKMetadataKeyReferenceRangeLowerLimit.
public let HKMetadataKeyReferenceRangeLowerLimit = "HKReferenceRangeLowerLimit"
/// The key of a lab result's reference range's upper limit. HealthKit: HKMetadataKeyReferenceRangeUpperLimit.
public let HKMetadataKeyReferenceRangeUpperLimit = "HKReferenceRangeUpperLimit"
/// The key of the ECG algorithm's version (an `HKAppleECGAlgorithmVersion` raw value).
/// HealthKit: HKMetadataKeyAppleECGAlgorithmVersion.
public let HKMetadataKeyAppleECGAlgorithmVersion = "HKMetadataKeyAppleECGAlgorithmVersion"
/// The key of the sound level of an audio exposure event (a quantity in dBASPL).
/// HealthKit: HKMetadataKeyAudioExposureLevel.
public let HKMetadataKeyAudioExposureLevel = "HKMetadataKeyAudioExposureLevel"
/// The key of how long an audio exposure lasted (a time quantity). HealthKit: HKMetadataKeyAudioExposureDuration.
public let HKMetadataKeyAudioExposureDuration = "HKMetadataKeyAudioExposureDuration"
/// The key of the headphones' gain during an exposure (a quantity in dBASPL). HealthKit: HKMetadataKeyHeadphoneGain.
public let HKMetadataKeyHeadphoneGain = "HKMetadataKeyHeadphoneGain"
/// The key of the VO2 max threshold of a low cardio fitness event (a VO2 max quantity).
/// HealthKit: HKMetadataKeyLowCardioFitnessEventThreshold.
public let HKMetadataKeyLowCardioFitnessEventThreshold = "HKLowCardioFitnessEventThreshold"
