import Foundation
import OpenHealthKit
import Testing

@Suite(.timeLimit(.minutes(1))) struct ModelTests {
    @Test func workoutConfigurationRules() throws {
        func configuration(
            _ type: HKWorkoutActivityType, _ swim: HKWorkoutSwimmingLocationType = .unknown,
            lap: Double? = nil
        ) -> HKWorkoutConfiguration {
            let c = HKWorkoutConfiguration()
            c.activityType = type
            c.swimmingLocationType = swim
            c.lapLength = lap.map { HKQuantity(unit: .meter(), doubleValue: $0) }
            return c
        }
        let defaults = HKWorkoutConfiguration()
        #expect(
            defaults.activityType == .other && defaults.locationType == .unknown
                && defaults.swimmingLocationType == .unknown)
        try configuration(.running).validate()
        try configuration(.swimming, .pool, lap: 25).validate()
        try configuration(.swimming, .openWater).validate()
        try configuration(.swimBikeRun).validate()
        let invalid: [(HKWorkoutConfiguration, HKError.Code, String)] = [
            (configuration(.swimming), .errorInvalidArgument, "pool or .openWater"),
            (configuration(.swimming, .pool), .errorInvalidArgument, "positive lapLength"),
            (configuration(.swimming, .pool, lap: 0), .errorInvalidArgument, "positive lapLength"),
            (configuration(.swimming, .openWater, lap: 25), .errorInvalidArgument, "must not set lapLength"),
            (configuration(.running, .pool), .errorInvalidArgument, "Only swimming"),
            (configuration(.cycling, lap: 25), .errorInvalidArgument, "Only pool swims"),
            (configuration(.underwaterDiving), .errorWorkoutActivityNotAllowed, "not allowed"),
        ]
        for (c, code, phrase) in invalid {
            #expect {
                try c.validate()
            } throws: { error in
                guard let error = error as? HKError else { return false }
                return error.code == code && error.message.contains(phrase)
            }
        }
        let lapInSeconds = configuration(.swimming, .pool)
        lapInSeconds.lapLength = HKQuantity(unit: .second(), doubleValue: 25)
        #expect(throws: HKError.self) { try lapInSeconds.validate() }
        // Copies are independent, as HealthKit's NSCopying configuration.
        let copy = configuration(.running).copy() as! HKWorkoutConfiguration
        copy.activityType = .walking
        #expect(configuration(.running).activityType == .running)
    }

    @Test func rawValuesMatchHealthKit() {
        #expect(HKWorkoutActivityType.cycling.rawValue == 13)
        #expect(HKWorkoutActivityType.running.rawValue == 37)
        #expect(HKWorkoutActivityType.swimming.rawValue == 46)
        #expect(HKWorkoutActivityType.walking.rawValue == 52)
        #expect(HKWorkoutActivityType.swimBikeRun.rawValue == 82)
        #expect(HKWorkoutActivityType.transition.rawValue == 83)
        #expect(HKWorkoutActivityType.other.rawValue == 3000)
        #expect(HKWorkoutEventType.allCases.map(\.rawValue) == Array(1 ... 8))
        #expect(HKWorkoutSessionLocationType.allCases.map(\.rawValue) == [1, 2, 3])
        #expect(HKError.Code.errorInvalidArgument.rawValue == 3 && HKError.Code.errorNoData.rawValue == 11)
        #expect(HKAuthorizationStatus.sharingAuthorized.rawValue == 2)
        #expect(HKQuantityAggregationStyle.discreteTemporallyWeighted.rawValue == 2)
        #expect(HKQuantityTypeIdentifier.heartRate.rawValue == "HKQuantityTypeIdentifierHeartRate")
        #expect(HKError.errorDomain == "com.apple.healthkit")
    }

    @Test func typesCompareByIdentifier() {
        let a = HKQuantityType(.heartRate)
        let b = HKObjectType.quantityType(forIdentifier: .heartRate)
        #expect(a == b)
        #expect(Set<HKSampleType>([a, b!, .workoutType()]).count == 2)
        #expect(a.aggregationStyle == .discreteTemporallyWeighted)
        #expect(HKQuantityType(.activeEnergyBurned).aggregationStyle == .cumulative)
        #expect(a.is(compatibleWith: HKUnit(from: "count/s")))
        #expect(!a.is(compatibleWith: .meter()))
        #expect(HKSeriesType.heartbeat().identifier == HKDataTypeIdentifierHeartbeatSeries)
        #expect(HKCharacteristicType(.dateOfBirth).identifier == "HKCharacteristicTypeIdentifierDateOfBirth")
    }

    @Test func workoutDurationsAndActivities() {
        // duration: 0 means end − start.
        let plain = legacy.workout(
            activityType: .walking, start: t0, end: t0 + 600, duration: 0, totalEnergyBurned: nil,
            totalDistance: nil, metadata: nil)
        #expect(plain.duration == 600)
        let explicit = legacy.workout(
            activityType: .walking, start: t0, end: t0 + 600, duration: 500, totalEnergyBurned: nil,
            totalDistance: nil, metadata: nil)
        #expect(explicit.duration == 500)
        // Pause while paused and resume while running are ignored; other events never move the clock.
        let events = [
            HKWorkoutEvent(type: .resume, dateInterval: DateInterval(start: t0 + 50, duration: 0), metadata: nil),
            HKWorkoutEvent(type: .pause, dateInterval: DateInterval(start: t0 + 100, duration: 0), metadata: nil),
            HKWorkoutEvent(type: .pause, dateInterval: DateInterval(start: t0 + 150, duration: 0), metadata: nil),
            HKWorkoutEvent(
                type: .motionPaused, dateInterval: DateInterval(start: t0 + 160, duration: 0), metadata: nil),
            HKWorkoutEvent(type: .resume, dateInterval: DateInterval(start: t0 + 200, duration: 0), metadata: nil),
            HKWorkoutEvent(type: .segment, dateInterval: DateInterval(start: t0 + 250, duration: 100), metadata: nil),
        ]
        let paused = legacy.workout(
            activityType: .running, start: t0, end: t0 + 600, workoutEvents: events, totalEnergyBurned: nil,
            totalDistance: nil, metadata: nil)
        #expect(paused.duration == 500)
        #expect(paused.workoutActivities.count == 1)
        let activity = paused.workoutActivities[0]
        #expect(activity.workoutConfiguration.activityType == .running)
        #expect(activity.startDate == t0 && activity.endDate == t0 + 600)
        #expect(activity.duration == 500)
        #expect(activity.workoutEvents.count == events.count)
    }

    @Test func invalidWorkoutsAreRejectedOnSave() async throws {
        let store = try await authorizedStore()
        let resumeFirst = legacy.workout(
            activityType: .running, start: t0, end: t0 + 600,
            workoutEvents: [
                HKWorkoutEvent(type: .resume, dateInterval: DateInterval(start: t0 + 1, duration: 0), metadata: nil)
            ],
            totalEnergyBurned: nil, totalDistance: nil, metadata: nil)
        await expectHKError(.errorInvalidArgument) { try await store.save(resumeFirst) }
        let outside = legacy.workout(
            activityType: .running, start: t0, end: t0 + 600,
            workoutEvents: [
                HKWorkoutEvent(type: .marker, dateInterval: DateInterval(start: t0 + 900, duration: 0), metadata: nil)
            ],
            totalEnergyBurned: nil, totalDistance: nil, metadata: nil)
        await expectHKError(.errorInvalidArgument) { try await store.save(outside) }
        let wrongTotal = legacy.workout(
            activityType: .running, start: t0, end: t0 + 600, duration: 0,
            totalEnergyBurned: HKQuantity(unit: .meter(), doubleValue: 5), totalDistance: nil, metadata: nil)
        await expectHKError(.errorInvalidArgument) { try await store.save(wrongTotal) }
        #expect(try await fetch(store, .workoutType(), nil).isEmpty)
        #expect(throws: HKError.self) {
            _ = try HKWorkoutEvent.validated(type: .pause, dateInterval: DateInterval(start: t0, duration: 5))
        }
    }

    @Test func errorsMatchLikeHealthKits() {
        let error: any Error = HKError(.errorAuthorizationDenied)
        var matched = false
        do { throw error } catch HKError.errorAuthorizationDenied { matched = true } catch {}
        #expect(matched)
        #expect((error as NSError).domain == "com.apple.healthkit")
        #expect((error as NSError).code == 4)
        #expect(error.localizedDescription.contains("denied"))
    }
}
