// Apple's sample-code article "Build a workout app for Apple Watch" (WWDC21 session 10009):
// https://developer.apple.com/documentation/healthkit/workouts_and_activity_rings/build_a_workout_app_for_apple_watch
//
// The HealthKit code of its `WorkoutManager`, written here following the sample's calls. Changed for Linux:
// `import HealthKit` is `import OpenHealthKit`; SwiftUI and Combine are gone (`ObservableObject` and `@Published`
// are plain properties, the views are out). The `DispatchQueue.main.async` hops are kept: the test reads what they
// set once the main queue has run them.
import OpenHealthKit
import Testing

final class WorkoutManager: NSObject, @unchecked Sendable {
    var selectedWorkout: HKWorkoutActivityType? {
        didSet {
            guard let selectedWorkout = selectedWorkout else { return }
            startWorkout(workoutType: selectedWorkout)
        }
    }

    var showingSummaryView: Bool = false {
        didSet {
            if showingSummaryView == false {
                resetWorkout()
            }
        }
    }

    let healthStore: HKHealthStore
    var session: HKWorkoutSession?
    var builder: HKLiveWorkoutBuilder?

    init(healthStore: HKHealthStore) { self.healthStore = healthStore }

    // Start the workout.
    func startWorkout(workoutType: HKWorkoutActivityType) {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = workoutType
        configuration.locationType = .outdoor

        // Create the session and obtain the workout builder.
        do {
            session = try HKWorkoutSession(healthStore: healthStore, configuration: configuration)
            builder = session?.associatedWorkoutBuilder()
        } catch {
            // Handle any exceptions.
            return
        }

        // Set up the session and builder.
        session?.delegate = self
        builder?.delegate = self

        // Set the workout builder's data source.
        builder?.dataSource = HKLiveWorkoutDataSource(
            healthStore: healthStore,
            workoutConfiguration: configuration)

        // Start the workout session and begin data collection.
        let startDate = now()
        session?.startActivity(with: startDate)
        builder?.beginCollection(withStart: startDate) { (success, error) in
            // The workout has started.
        }
    }

    /// The sample passes `Date()`; the test's clock stands in for it (ours).
    var now: () -> Date = { Date() }

    // Request authorization to access HealthKit.
    func requestAuthorization() {
        // The quantity type to write to the health store.
        let typesToShare: Set = [
            HKQuantityType.workoutType()
        ]

        // The quantity types to read from the health store.
        let typesToRead: Set = [
            HKQuantityType.quantityType(forIdentifier: .heartRate)!,
            HKQuantityType.quantityType(forIdentifier: .activeEnergyBurned)!,
            HKQuantityType.quantityType(forIdentifier: .distanceWalkingRunning)!,
            HKQuantityType.quantityType(forIdentifier: .distanceCycling)!,
            HKObjectType.activitySummaryType(),
        ]

        // Request authorization for those quantity types.
        healthStore.requestAuthorization(toShare: typesToShare, read: typesToRead) { (success, error) in
            // Handle error.
        }
    }

    // MARK: - Session State Control

    // The app's workout state.
    var running = false

    func togglePause() {
        if running == true {
            self.pause()
        } else {
            resume()
        }
    }

    func pause() {
        session?.pause()
    }

    func resume() {
        session?.resume()
    }

    func endWorkout() {
        session?.end()
        showingSummaryView = true
    }

    // MARK: - Workout Metrics
    var averageHeartRate: Double = 0
    var heartRate: Double = 0
    var activeEnergy: Double = 0
    var distance: Double = 0
    var workout: HKWorkout?

    func updateForStatistics(_ statistics: HKStatistics?) {
        guard let statistics = statistics else { return }

        DispatchQueue.main.async {
            switch statistics.quantityType {
            case HKQuantityType.quantityType(forIdentifier: .heartRate):
                let heartRateUnit = HKUnit.count().unitDivided(by: HKUnit.minute())
                self.heartRate = statistics.mostRecentQuantity()?.doubleValue(for: heartRateUnit) ?? 0
                self.averageHeartRate = statistics.averageQuantity()?.doubleValue(for: heartRateUnit) ?? 0
            case HKQuantityType.quantityType(forIdentifier: .activeEnergyBurned):
                let energyUnit = HKUnit.kilocalorie()
                self.activeEnergy = statistics.sumQuantity()?.doubleValue(for: energyUnit) ?? 0
            case HKQuantityType.quantityType(forIdentifier: .distanceWalkingRunning),
                HKQuantityType.quantityType(forIdentifier: .distanceCycling):
                let meterUnit = HKUnit.meter()
                self.distance = statistics.sumQuantity()?.doubleValue(for: meterUnit) ?? 0
            default:
                return
            }
        }
    }

    func resetWorkout() {
        selectedWorkout = nil
        builder = nil
        workout = nil
        session = nil
        activeEnergy = 0
        averageHeartRate = 0
        heartRate = 0
        distance = 0
    }
}

// MARK: - HKWorkoutSessionDelegate
extension WorkoutManager: HKWorkoutSessionDelegate {
    func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
        from fromState: HKWorkoutSessionState, date: Date
    ) {
        DispatchQueue.main.async {
            self.running = toState == .running
        }

        // Wait for the session to transition states before ending the builder.
        if toState == .ended {
            builder?.endCollection(withEnd: date) { (success, error) in
                self.builder?.finishWorkout { (workout, error) in
                    DispatchQueue.main.async {
                        self.workout = workout
                    }
                }
            }
        }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {

    }
}

// MARK: - HKLiveWorkoutBuilderDelegate
extension WorkoutManager: HKLiveWorkoutBuilderDelegate {
    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {

    }

    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {
        for type in collectedTypes {
            guard let quantityType = type as? HKQuantityType else {
                return  // Nothing to do.
            }

            let statistics = workoutBuilder.statistics(for: quantityType)

            // Update the published values.
            updateForStatistics(statistics)
        }
    }
}

@Suite(.timeLimit(.minutes(1))) struct BuildAWorkoutAppForAppleWatchTests {
    /// The sample's flow: authorize, pick a run, collect from a strap, pause and resume, end; the summary's workout
    /// arrives through the delegate, with the metrics the views showed.
    @Test func aRunFromStartToSummary() async throws {
        let rig = ArticleRig()
        let manager = WorkoutManager(healthStore: rig.store)
        manager.now = { rig.clock.date }
        manager.requestAuthorization()
        await eventually("authorization") { rig.store.authorizationStatus(for: .workoutType()) == .sharingAuthorized }

        manager.selectedWorkout = .running
        let dataSource = try #require(manager.builder?.dataSource)
        dataSource.attach(rig.strap)
        await eventually("the strap read") { !dataSource.sensorStatuses.isEmpty }
        for second in 0 ..< 120 { rig.beat(130 + second % 20, at: TimeInterval(second)) }
        await eventually("the heart rate shown") { manager.heartRate > 0 }
        await eventually("running") { manager.running }

        rig.clock.advance(by: .seconds(1))
        manager.togglePause()
        await eventually("paused") { !manager.running }
        rig.clock.advance(by: .seconds(60))
        manager.togglePause()
        await eventually("running again") { manager.running }
        for second in 180 ..< 240 { rig.beat(140, at: TimeInterval(second)) }
        rig.clock.advance(by: .seconds(1))

        manager.endWorkout()
        await eventually("the summary's workout") { manager.workout != nil }
        let workout = try #require(manager.workout)
        #expect(manager.showingSummaryView)
        #expect(workout.workoutActivityType == .running)
        #expect(workout.duration == 180, "four minutes less the one paused")
        #expect(manager.averageHeartRate > 130 && manager.averageHeartRate < 150)
        #expect(manager.heartRate == 140)

        manager.showingSummaryView = false
        #expect(manager.session == nil && manager.workout == nil && manager.heartRate == 0)
    }
}
