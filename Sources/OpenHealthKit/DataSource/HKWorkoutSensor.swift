import Foundation
import HealthKitModel
import WorkoutEngine

/// A sensor a live workout was recorded from, as its data source knew it when the workout was finished: the device
/// (with its Device Information: manufacturer, model, revisions — read once the sensor had connected) and the
/// first and last battery level it reported during the recording. Read it with
/// ``HKHealthStore/workoutSensors(for:)``; `workout export` writes it into FIT `device_info` messages.
///
/// OpenHealthKit extension: HealthKit keeps paired sensors out of an app's sight, and keeps no battery levels.
/// A workout recovered after a crash has none (the levels are not journaled), nor has one saved by an
/// `HKWorkoutBuilder` or imported.
public struct HKWorkoutSensor: Sendable, Hashable {
    /// The device, as the workout's samples name it, with what its Device Information said.
    public var device: HKDevice
    /// The first battery level the sensor reported during the recording (usually read when it connected), in percent.
    public var batteryPercentAtStart: Int?
    /// The last battery level it reported, in percent.
    public var batteryPercentAtEnd: Int?

    public init(device: HKDevice, batteryPercentAtStart: Int?, batteryPercentAtEnd: Int?) {
        self.device = device
        self.batteryPercentAtStart = batteryPercentAtStart
        self.batteryPercentAtEnd = batteryPercentAtEnd
    }
}

extension HKHealthStore {
    /// The sensors a workout was recorded from, in the order its data source ranked them (see
    /// ``HKLiveWorkoutDataSource``); empty for a workout that was not recorded live, or that this app cannot read
    /// (it needs read access to the workout type, as a query for the workout does).
    ///
    /// OpenHealthKit extension.
    public func workoutSensors(for workout: HKWorkout) async throws -> [HKWorkoutSensor] {
        let readable = try await HKSampleQueryDescriptor(
            predicates: [.workout(HKQuery.predicateForObject(with: workout.uuid))], sortDescriptors: [], limit: 1
        ).result(for: self)
        guard !readable.isEmpty else { return [] }
        return try await backend().workoutSensors(of: workout.uuid)
    }
}
