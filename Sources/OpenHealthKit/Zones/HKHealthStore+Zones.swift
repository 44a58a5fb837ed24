import Foundation
import HealthKitModel
import WorkoutEngine

extension HKHealthStore {
    /// The person's preferred zones for heart rate or cycling power: their own zones if they set some (source
    /// `.user`), else the system zones (`.system`, see `SystemZones`), else nil — cycling power has no system
    /// zones until the person sets zones or a functional threshold power.
    ///
    /// - Throws: `errorInvalidArgument` for a type without zones; `errorDatabaseInaccessible` if the store cannot
    ///   be read.
    ///
    /// HealthKit: HKHealthStore.preferredWorkoutZoneConfiguration(for:).
    public func preferredWorkoutZoneConfiguration(
        for quantityType: HKQuantityType
    ) async throws -> HKWorkoutZoneConfiguration? {
        try await preferredZoneConfiguration(for: quantityType)
    }

    /// The preferred configuration, read now (one read of a few indexed rows, the calling task suspended; builders
    /// call it as collection begins).
    func preferredZoneConfiguration(for quantityType: HKQuantityType) async throws -> HKWorkoutZoneConfiguration? {
        try HKWorkoutBuilder.checkZoned(quantityType)
        let inputs = try await backend().zonePreferences()
        return try SystemZones.preferred(
            for: quantityType, profile: inputs.profile, latestRestingHeartRate: inputs.restingHeartRate,
            latestFunctionalThresholdPower: inputs.functionalThresholdPower, now: wallClock())
    }

    /// The person's workout profile: date of birth, resting and maximum heart rate, FTP and their own zones.
    /// OpenHealthKit (HealthKit keeps these in Health Settings).
    public func workoutProfile() async throws -> WorkoutProfile {
        try await backend().workoutProfile()
    }

    /// Replaces the person's workout profile. Workouts already saved keep the zones they were computed with.
    ///
    /// - Throws: `errorInvalidArgument` naming the first field that is wrong (a date of birth in the future, a
    ///   resting rate not below the maximum, zone boundaries not ascending, …); nothing is changed then.
    ///
    /// OpenHealthKit (HealthKit keeps these in Health Settings).
    public func setWorkoutProfile(_ profile: WorkoutProfile) async throws {
        try profile.validate(now: wallClock())
        try await backend().setWorkoutProfile(profile)
    }
}
