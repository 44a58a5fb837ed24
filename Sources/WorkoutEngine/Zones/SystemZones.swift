import Foundation
import HealthKitModel

/// The zones OpenHealthKit generates when the person has not set their own (source `.system`). Pure.
///
/// HealthKit says its system zones come from age and resting heart rate but publishes no percentages; these are
/// **OpenHealthKit's own choice**:
/// - **Heart rate**: five zones from the heart-rate reserve (Karvonen), boundaries at resting + 60/70/80/90 % of
///   (maximum − resting). Resting: the latest `restingHeartRate` sample, else the profile's, else 72 count/min.
///   Maximum: the profile's, else 220 − age (from the date of birth), else 180 count/min. With 72 and 180 this
///   gives 136.8/147.6/158.4/169.2 count/min, the boundaries in Apple's examples. If the resting rate is not below
///   the maximum, 72 and 180 are used.
/// - **Cycling power**: none without a functional threshold power (the latest `cyclingFunctionalThresholdPower`
///   sample, else the profile's); with one, six zones at 55/75/90/105/120 % of FTP (Coggan's levels 1–6, level 6
///   left open).
/// Boundaries are rounded to 0.1 count/min or 0.1 W.
package enum SystemZones {
    package static let heartRateReserveFractions = [0.60, 0.70, 0.80, 0.90]
    package static let functionalThresholdPowerFractions = [0.55, 0.75, 0.90, 1.05, 1.20]
    package static let defaultRestingHeartRate = 72.0
    package static let defaultMaximumHeartRate = 180.0

    /// The person's preferred configuration for a zoned type: their own zones, else the system zones, else nil.
    package static func preferred(
        for type: HKQuantityType, profile: WorkoutProfile, latestRestingHeartRate: Double?,
        latestFunctionalThresholdPower: Double?, now: Date
    ) throws -> HKWorkoutZoneConfiguration? {
        if type == HKQuantityType(.heartRate) {
            if let own = profile.heartRateZoneBoundaries {
                return try HKWorkoutZoneConfiguration(quantityType: type, boundaryValues: own, source: .user)
            }
            var resting = latestRestingHeartRate ?? profile.restingHeartRate ?? defaultRestingHeartRate
            var maximum =
                profile.maximumHeartRate
                ?? profile.dateOfBirth.flatMap { WorkoutProfile.age(born: $0, at: now) }.map { 220 - Double($0) }
                ?? defaultMaximumHeartRate
            if resting >= maximum { (resting, maximum) = (defaultRestingHeartRate, defaultMaximumHeartRate) }
            return try heartRate(resting: resting, maximum: maximum)
        }
        if type == HKQuantityType(.cyclingPower) {
            if let own = profile.cyclingPowerZoneBoundaries {
                return try HKWorkoutZoneConfiguration(quantityType: type, boundaryValues: own, source: .user)
            }
            guard let ftp = latestFunctionalThresholdPower ?? profile.functionalThresholdPower, ftp > 0 else {
                return nil
            }
            return try cyclingPower(functionalThresholdPower: ftp)
        }
        throw HKError(
            .errorInvalidArgument,
            "Workout zones exist for heart rate and cycling power only, not for \(type.identifier).")
    }

    package static func heartRate(resting: Double, maximum: Double) throws -> HKWorkoutZoneConfiguration {
        try HKWorkoutZoneConfiguration(
            quantityType: HKQuantityType(.heartRate),
            boundaryValues: heartRateReserveBoundaries(resting: resting, maximum: maximum),
            source: .system)
    }

    /// The heart-rate-reserve boundaries: resting + 60/70/80/90 % of (maximum − resting), to 0.1 count/min.
    package static func heartRateReserveBoundaries(resting: Double, maximum: Double) -> [Double] {
        heartRateReserveFractions.map { rounded(resting + $0 * (maximum - resting)) }
    }

    package static func cyclingPower(functionalThresholdPower ftp: Double) throws -> HKWorkoutZoneConfiguration {
        let boundaries = functionalThresholdPowerFractions.map { rounded($0 * ftp) }
        return try HKWorkoutZoneConfiguration(
            quantityType: HKQuantityType(.cyclingPower), boundaryValues: boundaries, source: .system)
    }

    private static func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}

extension HKWorkoutZoneConfiguration {
    /// The fractions of the heart-rate reserve at which heart-rate-reserve zones divide (0.6, 0.7, 0.8, 0.9):
    /// OpenHealthKit's choice for its system zones, see ``heartRateReserve(maximum:resting:)``.
    public static var heartRateReserveFractions: [Double] { SystemZones.heartRateReserveFractions }
    /// The resting heart rate heart-rate-reserve zones take when none is known: 72 count/min.
    public static var defaultRestingHeartRate: Double { SystemZones.defaultRestingHeartRate }
    /// The maximum heart rate heart-rate-reserve zones take when none is known: 180 count/min.
    public static var defaultMaximumHeartRate: Double { SystemZones.defaultMaximumHeartRate }

    /// Heart-rate-reserve (Karvonen) zones, the rule OpenHealthKit's system zones use: five zones divided at
    /// resting + 60/70/80/90 % of (maximum − resting), to 0.1 count/min, from the rates given (72 and 180 count/min
    /// when one is missing, as for the system zones). Its source is `.app`: zones an app sets for one workout with
    /// `setCustomZoneConfiguration(_:for:)`.
    ///
    /// - Throws: `errorInvalidArgument` when the maximum is not above the resting rate.
    ///
    /// OpenHealthKit extension.
    public static func heartRateReserve(maximum: Double?, resting: Double?) throws -> HKWorkoutZoneConfiguration {
        let top = maximum ?? defaultMaximumHeartRate
        let rest = resting ?? defaultRestingHeartRate
        guard rest > 0, top > rest else {
            throw HKError(
                .errorInvalidArgument,
                "A maximum heart rate of \(top) count/min is not above the resting rate of \(rest).")
        }
        let boundaries = SystemZones.heartRateReserveBoundaries(resting: rest, maximum: top)
        return try HKWorkoutZoneConfiguration(
            quantityType: HKQuantityType(.heartRate), boundaryValues: boundaries, source: .app)
    }
}
