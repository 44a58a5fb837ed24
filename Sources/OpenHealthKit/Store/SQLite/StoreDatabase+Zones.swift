import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

/// SQL for workout zones and the person's workout profile (schema "v4: workout zones").
extension StoreDatabase {
    /// Writes zone groups of a workout (`activityID` nil) or of one of its activities.
    func insertZoneGroups(
        _ groups: [HKQuantityType: HKWorkoutZoneGroup]?, workoutID: Int64, activityID: Int64?,
        _ db: Database
    ) throws {
        guard let groups else { return }
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO workout_zone_groups (workout_id, activity_id, type_id, source, boundaries, durations)
                VALUES (?, ?, ?, ?, ?, ?)
                """)
        for (type, group) in groups {
            try statement.execute(arguments: [
                workoutID, activityID, try typeID(type.identifier, db),
                group.configuration.source.storeCode,
                Self.encodeList(group.configuration.boundaryValues), Self.encodeList(group.durations),
            ])
        }
    }

    /// Zone groups of the workouts in `list` (comma-separated row ids): the workouts' own and their activities'.
    func zoneGroups(
        workoutIDs list: String, _ db: Database
    )
        throws -> (
            workouts: [Int64: [HKQuantityType: HKWorkoutZoneGroup]],
            activities: [Int64: [HKQuantityType: HKWorkoutZoneGroup]]
        )
    {
        var workouts: [Int64: [HKQuantityType: HKWorkoutZoneGroup]] = [:]
        var activities: [Int64: [HKQuantityType: HKWorkoutZoneGroup]] = [:]
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT workout_id, activity_id, type_id, source, boundaries, durations FROM workout_zone_groups
                WHERE workout_id IN (\(list))
                """)
        {
            guard let type = try sampleType(id: row[2], db) as? HKQuantityType,
                let boundaries = Self.decodeList(row[4]), let durations = Self.decodeList(row[5]),
                let group = HKWorkoutZoneGroup.stored(
                    type: type, sourceCode: row[3], boundaries: boundaries, durations: durations)
            else {
                throw HKError(.errorDatabaseInaccessible, "The health store holds damaged workout zones.")
            }
            if let activityID = row[1] as Int64? {
                activities[activityID, default: [:]][type] = group
            } else {
                workouts[row[0], default: [:]][type] = group
            }
        }
        return (workouts, activities)
    }

    /// The person's workout profile (empty if never set).
    func workoutProfile(_ db: Database) throws -> WorkoutProfile {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT date_of_birth, resting_heart_rate, maximum_heart_rate, functional_threshold_power, heart_rate_zones,
                           cycling_power_zones, move_goal, exercise_goal, stand_goal FROM workout_profile WHERE id = 1
                    """)
        else { return WorkoutProfile() }
        var profile = WorkoutProfile()
        profile.dateOfBirth = (row[0] as String?).flatMap(WorkoutProfile.parseDate)
        profile.restingHeartRate = row[1]
        profile.maximumHeartRate = row[2]
        profile.functionalThresholdPower = row[3]
        profile.heartRateZoneBoundaries = (row[4] as String?).flatMap(Self.decodeList)
        profile.cyclingPowerZoneBoundaries = (row[5] as String?).flatMap(Self.decodeList)
        profile.moveGoal = row[6]
        profile.exerciseGoal = row[7]
        profile.standGoal = row[8]
        return profile
    }

    func setWorkoutProfile(_ profile: WorkoutProfile, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO workout_profile (id, date_of_birth, resting_heart_rate, maximum_heart_rate,
                    functional_threshold_power, heart_rate_zones, cycling_power_zones, move_goal, exercise_goal, stand_goal)
                    VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                profile.dateOfBirth.flatMap(WorkoutProfile.formatDate), profile.restingHeartRate,
                profile.maximumHeartRate, profile.functionalThresholdPower,
                profile.heartRateZoneBoundaries.map(Self.encodeList),
                profile.cyclingPowerZoneBoundaries.map(Self.encodeList), profile.moveGoal,
                profile.exerciseGoal, profile.standGoal,
            ])
    }

    /// The value (storage unit) of the latest sample of a type, by start date, whoever saved it.
    func latestValue(of type: HKQuantityType, _ db: Database) throws -> Double? {
        try Double.fetchOne(
            db,
            sql: """
                SELECT s.value FROM samples s JOIN types t ON t.id = s.type_id WHERE t.identifier = ?
                ORDER BY s.start DESC, s.id DESC LIMIT 1
                """, arguments: [type.identifier])
    }

    /// Numbers as text that reads back exactly (Swift prints the shortest round-tripping form).
    static func encodeList(_ values: [Double]) -> String { values.map { "\($0)" }.joined(separator: ",") }

    static func decodeList(_ text: String) -> [Double]? {
        let values = text.split(separator: ",").map { Double($0) }
        return values.contains(nil) ? nil : values.map { $0! }
    }
}
