/// Identifiers of quantity types, with HealthKit's raw strings.
///
/// HealthKit: HKQuantityTypeIdentifier.
public struct HKQuantityTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    private static func make(_ name: String) -> Self { Self("HKQuantityTypeIdentifier" + name) }

    // Heart and lungs
    public static let heartRate = make("HeartRate")
    public static let restingHeartRate = make("RestingHeartRate")
    public static let walkingHeartRateAverage = make("WalkingHeartRateAverage")
    public static let heartRateRecoveryOneMinute = make("HeartRateRecoveryOneMinute")
    public static let heartRateVariabilitySDNN = make("HeartRateVariabilitySDNN")
    public static let respiratoryRate = make("RespiratoryRate")
    public static let oxygenSaturation = make("OxygenSaturation")
    public static let vo2Max = make("VO2Max")
    public static let bodyTemperature = make("BodyTemperature")

    // Energy and distance
    public static let activeEnergyBurned = make("ActiveEnergyBurned")
    public static let basalEnergyBurned = make("BasalEnergyBurned")
    public static let distanceWalkingRunning = make("DistanceWalkingRunning")
    public static let distanceCycling = make("DistanceCycling")
    public static let distanceSwimming = make("DistanceSwimming")
    public static let distanceWheelchair = make("DistanceWheelchair")
    public static let distanceDownhillSnowSports = make("DistanceDownhillSnowSports")
    public static let distanceCrossCountrySkiing = make("DistanceCrossCountrySkiing")
    public static let distancePaddleSports = make("DistancePaddleSports")
    public static let distanceRowing = make("DistanceRowing")
    public static let distanceSkatingSports = make("DistanceSkatingSports")

    // Counts and times
    public static let swimmingStrokeCount = make("SwimmingStrokeCount")
    public static let stepCount = make("StepCount")
    public static let flightsClimbed = make("FlightsClimbed")
    public static let pushCount = make("PushCount")
    public static let appleExerciseTime = make("AppleExerciseTime")
    public static let appleMoveTime = make("AppleMoveTime")
    public static let appleStandTime = make("AppleStandTime")
    public static let timeInDaylight = make("TimeInDaylight")

    // Cycling and running
    public static let cyclingPower = make("CyclingPower")
    public static let cyclingFunctionalThresholdPower = make("CyclingFunctionalThresholdPower")
    public static let cyclingCadence = make("CyclingCadence")
    public static let cyclingSpeed = make("CyclingSpeed")
    public static let runningPower = make("RunningPower")
    public static let runningSpeed = make("RunningSpeed")
    public static let runningStrideLength = make("RunningStrideLength")
    public static let runningVerticalOscillation = make("RunningVerticalOscillation")
    public static let runningGroundContactTime = make("RunningGroundContactTime")
    public static let walkingSpeed = make("WalkingSpeed")
    public static let walkingStepLength = make("WalkingStepLength")
    public static let crossCountrySkiingSpeed = make("CrossCountrySkiingSpeed")
    public static let paddleSportsSpeed = make("PaddleSportsSpeed")
    public static let rowingSpeed = make("RowingSpeed")
    public static let stairAscentSpeed = make("StairAscentSpeed")
    public static let stairDescentSpeed = make("StairDescentSpeed")
    public static let walkingAsymmetryPercentage = make("WalkingAsymmetryPercentage")
    public static let walkingDoubleSupportPercentage = make("WalkingDoubleSupportPercentage")
    public static let sixMinuteWalkTestDistance = make("SixMinuteWalkTestDistance")
    /// Nike Fuel points (cumulative counts).
    public static let nikeFuel = make("NikeFuel")

    // Effort, water, body
    public static let physicalEffort = make("PhysicalEffort")
    public static let workoutEffortScore = make("WorkoutEffortScore")
    public static let estimatedWorkoutEffortScore = make("EstimatedWorkoutEffortScore")
    public static let underwaterDepth = make("UnderwaterDepth")
    public static let waterTemperature = make("WaterTemperature")
    public static let bodyMass = make("BodyMass")
    public static let leanBodyMass = make("LeanBodyMass")
    public static let height = make("Height")
    public static let bodyFatPercentage = make("BodyFatPercentage")
    public static let environmentalAudioExposure = make("EnvironmentalAudioExposure")
    public static let headphoneAudioExposure = make("HeadphoneAudioExposure")

    // Nutrition
    /// Food energy eaten (cumulative, kilocalories): what Apple's article "Executing Statistical Queries" sums.
    public static let dietaryEnergyConsumed = make("DietaryEnergyConsumed")
}
