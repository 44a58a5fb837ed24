import Foundation
import HealthKitModel
import WorkoutEngine

extension LiveWorkoutFigures {
    /// Reads the figures from a live builder as of `date`.
    public init(builder: HKLiveWorkoutBuilder, at date: Date) {
        let lapEvents = builder.workoutEvents.filter { $0.type == .lap }
        let collectedTypes = builder.dataSource?.typesToCollect ?? []
        var values: [HKQuantityType: Value] = [:]
        for type in collectedTypes {
            guard let statistics = builder.statistics(for: type), let quantity = statistics.mostRecentQuantity(),
                let interval = statistics.mostRecentQuantityDateInterval()
            else { continue }
            values[type] = Value(quantityType: type, quantity: quantity, date: interval.start)
        }
        self.init(
            date: date, startDate: builder.startDate, elapsedTime: builder.elapsedTime(at: date),
            elapsedTimeAtLastLap: lapEvents.last.map { builder.elapsedTime(at: $0.dateInterval.end) } ?? 0,
            laps: lapEvents.count, collectedTypes: collectedTypes, mostRecent: values,
            heartRateZones: builder.zoneGroup(for: HKQuantityType(.heartRate))?.zoneDurations,
            sensors: builder.dataSource?.sensorStatuses ?? [])
        threeSecondPower = builder.threeSecondPower(at: date)
        runningCadence = builder.runningCadence(at: date)
    }
}
