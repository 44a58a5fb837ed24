// Apple's article "Running workout sessions":
// https://developer.apple.com/documentation/healthkit/running-workout-sessions
//
// Its listings, in the order the article gives them, inside the class an app would put them in. Changed for Linux:
// `import HealthKit` is `import OpenHealthKit`. Changed for Swift (the listings do not compile on any platform as
// printed): the `guard success else { // Handle errors. }` bodies gain the `return` Swift requires; the delegate
// method and properties the article leaves to the app (`session`, `builder`, `labelForQuantityType`,
// `workoutSession(_:didFailWithError:)`) are written here. The `DispatchQueue.main.async` UI updates
// are kept, with their empty bodies; the statistics and label the listing computes for the interface are kept in
// `shown`, and the last event in `lastEvent`, for the test to read.
import OpenHealthKit
import Testing

final class RunningWorkoutSessionsApp: NSObject, HKWorkoutSessionDelegate, HKLiveWorkoutBuilderDelegate,
    @unchecked Sendable
{
    let healthStore: HKHealthStore
    var session: HKWorkoutSession!
    var builder: HKLiveWorkoutBuilder!
    /// What the app shows: the last label and statistics per type, and the events it was told of (ours).
    var shown: [String: HKStatistics] = [:]
    var lastEvent: HKWorkoutEvent?
    var finished: HKWorkout?
    private let lock = NSLock()

    init(healthStore: HKHealthStore) { self.healthStore = healthStore }

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
            HKObjectType.activitySummaryType(),
            HKCharacteristicType(.activityMoveMode),
        ]

        // Request authorization for those quantity types.
        healthStore.requestAuthorization(toShare: typesToShare, read: typesToRead) { (success, error) in
            // Handle errors here.
        }
    }

    func startWorkout(at date: Date) {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        configuration.locationType = .outdoor

        do {
            session = try HKWorkoutSession(healthStore: healthStore, configuration: configuration)
            builder = session.associatedWorkoutBuilder()
        } catch {
            // Handle failure here.
            return
        }

        builder.dataSource = HKLiveWorkoutDataSource(
            healthStore: healthStore,
            workoutConfiguration: configuration)

        session.delegate = self
        builder.delegate = self

        // The article passes `Date()` to both; the test passes its clock's date.
        session.startActivity(with: date)
        builder.beginCollection(withStart: date) { (success, error) in

            guard success else {
                // Handle errors.
                return
            }

            // Indicate that the session has started.
        }
    }

    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {
        for type in collectedTypes {
            guard let quantityType = type as? HKQuantityType else {
                return  // Nothing to do.
            }

            // Calculate statistics for the type.
            let statistics = workoutBuilder.statistics(for: quantityType)
            let label = labelForQuantityType(quantityType)
            lock.withLock { shown[label] = statistics }

            DispatchQueue.main.async {
                // Update the user interface.
            }
        }
    }

    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {

        let lastEvent = workoutBuilder.workoutEvents.last
        lock.withLock { self.lastEvent = lastEvent }

        DispatchQueue.main.async {
            // Update the user interface here.
        }
    }

    func stopWorkout(at date: Date) {
        // The article passes `Date()`.
        session.stopActivity(with: date)
    }

    func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
        from fromState: HKWorkoutSessionState, date: Date
    ) {

        // Wait for the session to transition states before ending the builder.
        if toState == .stopped {

            builder.endCollection(withEnd: date) { (success, error) in

                guard success else {
                    // Handle errors.
                    return
                }

                self.builder.finishWorkout { (workout, error) in

                    guard workout != nil else {
                        // Handle errors.
                        return
                    }
                    self.lock.withLock { self.finished = workout }

                    self.session.end()

                    DispatchQueue.main.async {
                        // Update the user interface.
                    }
                }
            }
        }
    }

    // The app's own parts, which the article does not show.
    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {}

    func labelForQuantityType(_ type: HKQuantityType) -> String {
        switch type {
        case HKQuantityType(.heartRate): "Heart rate"
        case HKQuantityType(.activeEnergyBurned): "Active energy"
        case HKQuantityType(.distanceWalkingRunning): "Distance"
        default: type.identifier
        }
    }

    var state: (shown: [String: HKStatistics], lastEvent: HKWorkoutEvent?, finished: HKWorkout?) {
        lock.withLock { (shown, lastEvent, finished) }
    }
}

@Suite(.timeLimit(.minutes(1))) struct RunningWorkoutSessionsTests {
    /// The article's app runs a workout: authorized, started, fed by a heart-rate strap for five minutes, paused and
    /// resumed by the person, stopped; its delegate ends the collection, saves the workout and ends the session.
    @Test func theArticlesAppRecordsAndSavesARun() async throws {
        let rig = ArticleRig()
        let app = RunningWorkoutSessionsApp(healthStore: rig.store)

        app.requestAuthorization()
        await eventually("authorization") {
            rig.store.authorizationStatus(for: .workoutType()) == .sharingAuthorized
        }

        app.startWorkout(at: rig.date(0))
        // Apple Watch's sensors are built in; here the data source reads a strap, started when collection begins.
        let dataSource = try #require(app.builder.dataSource)
        dataSource.attach(rig.strap)
        await eventually("the session running and the strap read") {
            app.session.state == .running && !dataSource.sensorStatuses.isEmpty
        }
        for second in 0 ..< 300 { rig.beat(120 + second % 30, at: TimeInterval(second)) }
        await eventually("the heart rate shown") { app.state.shown["Heart rate"] != nil }

        app.session.pause()
        await eventually("the pause event shown") { app.state.lastEvent?.type == .pause }
        app.session.resume()

        app.stopWorkout(at: rig.date(300))
        await eventually("the session ended by the delegate") { app.session.state == .ended }

        let workout = try #require(app.state.finished)
        #expect(workout.workoutActivityType == .running)
        #expect(workout.startDate == rig.date(0) && workout.endDate == rig.date(300))
        let events: [HKWorkoutEventType] = (workout.workoutEvents ?? []).map(\.type)
        #expect(events.prefix(2) == [.pause, .resume])
        let heartRate = try #require(workout.statistics(for: HKQuantityType(.heartRate)))
        let bpm = HKUnit.count().unitDivided(by: .minute())
        #expect(heartRate.minimumQuantity()?.doubleValue(for: bpm) == 120)
        #expect(heartRate.maximumQuantity()?.doubleValue(for: bpm) == 149)

        // The workout is in the store, as the article's "save a workout session" promises.
        let saved = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(
            for: rig.store)
        #expect(saved.map(\.uuid) == [workout.uuid])
    }
}
