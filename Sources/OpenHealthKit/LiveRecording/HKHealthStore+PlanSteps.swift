import Foundation

extension HKHealthStore {
    /// The steps of the plan `workout` was recorded with (its segment events that name a step), each with its
    /// figures from the workout's cycling power (``PlanStepFigures``); empty when it ran no plan. OpenHealthKit.
    public func planSteps(of workout: HKWorkout) async throws -> [PlanStepFigures] {
        let events = workout.workoutEvents ?? []
        guard events.contains(where: { $0.type == .segment && $0.metadata?[PlanRunner.stepNameMetadataKey] != nil })
        else { return [] }
        let samples = try await HKSampleQueryDescriptor(
            predicates: [
                .quantitySample(
                    type: HKQuantityType(.cyclingPower), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: [SortDescriptor(\.startDate)]
        ).result(for: self)
        let power = samples.map { (date: $0.startDate, watts: $0.quantity.doubleValue(for: .watt())) }
        return PlanStepFigures.steps(of: events, power: power)
    }
}
