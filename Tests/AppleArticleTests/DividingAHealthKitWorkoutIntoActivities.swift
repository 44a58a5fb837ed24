// Apple's article "Dividing a HealthKit workout into activities":
// https://developer.apple.com/documentation/healthkit/dividing-a-healthkit-workout-into-activities
//
// Its listings in order, as the methods of the app object that holds `store`, `session` and `workoutBuilder`.
// Changed for Linux: `import HealthKit` is `import OpenHealthKit`. Changed for the test: each `Date()` is the test's
// date, passed in as `now`; the workout the last step prints is also returned, and the query's matches too.
import OpenHealthKit
import Testing

final class DividingAHealthKitWorkoutIntoActivities: @unchecked Sendable {
    let store: HKHealthStore
    var session: HKWorkoutSession!
    var workoutBuilder: HKLiveWorkoutBuilder!

    init(store: HKHealthStore) { self.store = store }

    func start(now: Date) async throws {
        // Create the workout configuration for a multisport workout.
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .swimBikeRun
        configuration.locationType = .outdoor

        // Create the workout session.
        session = try HKWorkoutSession(
            healthStore: store,
            configuration: configuration)

        // Start the session and the workout builder.
        let startDate = now
        session.startActivity(with: startDate)
        workoutBuilder = session.associatedWorkoutBuilder()

        // Set the workout builder's data source.
        workoutBuilder.dataSource =
            HKLiveWorkoutDataSource(
                healthStore: store,
                workoutConfiguration: configuration)

        // Start collecting data.
        try await workoutBuilder.beginCollection(at: startDate)
    }

    func startSwimming(now: Date) {
        // Start the swimming activity.
        let swimmingConfiguration = HKWorkoutConfiguration()
        swimmingConfiguration.activityType = .swimming
        swimmingConfiguration.locationType = .outdoor
        swimmingConfiguration.swimmingLocationType = .openWater

        session.beginNewActivity(
            configuration: swimmingConfiguration,
            date: now,
            metadata: nil)
    }

    func endActivity(now: Date) {
        // End the activity.
        session.endCurrentActivity(on: now)
    }

    func startTransition(now: Date) {
        // Explicitly track the transition between activities.
        let transitionConfiguration = HKWorkoutConfiguration()
        transitionConfiguration.activityType = .transition
        transitionConfiguration.locationType = .outdoor

        session.beginNewActivity(
            configuration: transitionConfiguration,
            date: now,
            metadata: nil)
    }

    func finish() async throws -> HKWorkout? {
        // Ending the session also ends the current activity.
        session.end()

        // Finishing the workout saves the workout
        // and returns an HKWorkout object that you can use to display summary data.
        let workout = try await workoutBuilder.finishWorkout()

        // Do something with the workout here.
        print(workout as Any)
        return workout
    }

    func enableRespiratoryRate() {
        // Enable the collection of respiratory rate.
        guard let dataSource = session.associatedWorkoutBuilder().dataSource else {
            print("*** No data source found! ***")
            return
        }

        let respiratoryRate = HKQuantityType(.respiratoryRate)
        dataSource.enableCollection(for: respiratoryRate, predicate: nil)
    }

    func disableRespiratoryRate() {
        // Disable the collection of respiratory rate.
        guard let dataSource = session.associatedWorkoutBuilder().dataSource else {
            print("*** No data source found! ***")
            return
        }

        let respiratoryRate = HKQuantityType(.respiratoryRate)
        dataSource.disableCollection(for: respiratoryRate)
    }

    func workoutsWithHighHeartRate() async throws -> [HKWorkout] {
        // Create a predicate for an average heart rate of greater than 150 bpm.
        let highHeartRate = HKQuantity(unit: .count(), doubleValue: 150.0)
        let heartRateType = HKQuantityType(.heartRate)

        let heartRatePredicate =
            HKQuery.predicateForWorkoutActivities(
                operatorType: .greaterThan,
                quantityType: heartRateType,
                averageQuantity: highHeartRate)

        // Wrap the workout activity predicate inside a workout predicate.
        let workoutPredicate = HKQuery.predicateForWorkouts(activityPredicate: heartRatePredicate)

        let query = HKSampleQueryDescriptor(
            predicates: [.workout(workoutPredicate)],
            sortDescriptors: [])

        let matchingWorkouts = try await query.result(for: store)

        // Do something with the samples here.
        print(matchingWorkouts)
        return matchingWorkouts
    }
}

@Suite(.timeLimit(.minutes(1))) struct DividingAHealthKitWorkoutIntoActivitiesTests {
    /// A swim, a transition and a ride (no run: the session ends during the ride): three activities in the saved
    /// workout, each with its configuration and dates; respiratory rate collected between enable and disable.
    @Test func aTriathlonIsSavedWithItsActivities() async throws {
        let rig = ArticleRig()
        try await rig.store.authorizeWorkoutTypes()
        let app = DividingAHealthKitWorkoutIntoActivities(store: rig.store)
        try await app.start(now: rig.date(0))
        let types = try #require(app.workoutBuilder.dataSource).typesToCollect
        app.enableRespiratoryRate()
        #expect(
            try #require(app.workoutBuilder.dataSource).typesToCollect
                == types.union([HKQuantityType(.respiratoryRate)]))
        app.disableRespiratoryRate()
        #expect(try #require(app.workoutBuilder.dataSource).typesToCollect == types)

        app.startSwimming(now: rig.date(0))
        app.endActivity(now: rig.date(1200))
        app.startTransition(now: rig.date(1200))
        let ride = HKWorkoutConfiguration()
        ride.activityType = .cycling
        ride.locationType = .outdoor
        app.session.beginNewActivity(configuration: ride, date: rig.date(1500), metadata: nil)
        rig.clock.advance(by: .seconds(3600))

        // The article finishes right after `session.end()`, but HKWorkoutBuilder.finishWorkout's reference says
        // endCollection(withEnd:) must come first; OpenHealthKit follows the reference, so the listing's last step
        // fails as documented, and the test ends the collection and finishes again.
        await #expect(throws: HKError.self) { _ = try await app.finish() }
        try await app.workoutBuilder.endCollection(at: rig.date(3600))
        let workout = try #require(try await app.workoutBuilder.finishWorkout())
        #expect(workout.workoutActivityType == .swimBikeRun)
        #expect(
            workout.workoutActivities.map(\.workoutConfiguration.activityType) == [.swimming, .transition, .cycling])
        #expect(workout.workoutActivities.map(\.startDate) == [rig.date(0), rig.date(1200), rig.date(1500)])
        #expect(workout.workoutActivities.first?.endDate == rig.date(1200))
        #expect(workout.workoutActivities.last?.endDate == workout.endDate)

        // The article's query compares heart rate with `HKQuantity(unit: .count(), …)`, a unit heart rate does not
        // have (count/min): the query fails with one clear error, where HealthKit raises on incompatible units.
        await #expect {
            _ = try await app.workoutsWithHighHeartRate()
        } throws: { error in
            (error as? HKError)?.code == .errorInvalidArgument
        }
    }
}
