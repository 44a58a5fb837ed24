import Foundation
import GRDB
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
        try preferredZoneConfiguration(for: quantityType)
    }

    /// The preferred configuration, read now (a few indexed reads; builders call it as collection begins).
    func preferredZoneConfiguration(for quantityType: HKQuantityType) throws -> HKWorkoutZoneConfiguration? {
        try HKWorkoutBuilder.checkZoned(quantityType)
        let database = try database()
        let (profile, resting, ftp) = try database.read { db in
            (
                try database.workoutProfile(db), try database.latestValue(of: HKQuantityType(.restingHeartRate), db),
                try database.latestValue(of: HKQuantityType(.cyclingFunctionalThresholdPower), db)
            )
        }
        return try SystemZones.preferred(
            for: quantityType, profile: profile, latestRestingHeartRate: resting,
            latestFunctionalThresholdPower: ftp, now: wallClock())
    }

    /// The person's workout profile: date of birth, resting and maximum heart rate, FTP and their own zones.
    /// OpenHealthKit (HealthKit keeps these in Health Settings).
    public func workoutProfile() async throws -> WorkoutProfile {
        let database = try database()
        return try await database.read { db in try database.workoutProfile(db) }
    }

    /// Replaces the person's workout profile. Workouts already saved keep the zones they were computed with.
    ///
    /// - Throws: `errorInvalidArgument` naming the first field that is wrong (a date of birth in the future, a
    ///   resting rate not below the maximum, zone boundaries not ascending, …); nothing is changed then.
    ///
    /// OpenHealthKit (HealthKit keeps these in Health Settings).
    public func setWorkoutProfile(_ profile: WorkoutProfile) async throws {
        try profile.validate(now: wallClock())
        let database = try database()
        try await database.write { db in try database.setWorkoutProfile(profile, db) }
    }
}
