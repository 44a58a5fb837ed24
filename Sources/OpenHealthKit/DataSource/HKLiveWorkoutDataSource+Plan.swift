import FitnessSensors
import Foundation
import HealthKitModel
import WorkoutEngine

extension HKLiveWorkoutDataSource {
    /// Every type a live workout may save, whatever the activity and sensors: the quantity types of the table in
    /// `CollectionPlan` for every activity, the workout type and the heartbeat series. What an app asks to share
    /// (and read) before recording or replaying a workout of any kind. OpenHealthKit extension.
    public static var collectableTypes: Set<HKSampleType> {
        let every: SensorCapabilities = [
            .heartRate, .rrIntervals, .power, .cadence, .speed, .distance, .energy, .battery,
            .steps, .control,
        ]
        let activities: [HKWorkoutActivityType] = [.swimBikeRun, .walking, .wheelchairWalkPace, .handCycling, .rowing]
        var types: Set<HKSampleType> = [.workoutType(), HKSeriesType.heartbeat()]
        for activity in activities {
            for type in CollectionPlan.types(for: activity, sensors: every) { types.insert(type) }
        }
        return types
    }
}
