import Foundation
import Testing

@testable import OpenHealthKit

/// Category types and samples (stand hours, sleep, mindful sessions, heart-rate events) as HealthKit has them: saved
/// in the store, authorized per type, read by sample and anchored queries, deleted, left alone by condensing.
@Suite(.timeLimit(.minutes(1))) struct CategorySampleTests {
    static let categoryTypes: [HKCategoryTypeIdentifier] = [
        .appleStandHour, .mindfulSession, .sleepAnalysis, .highHeartRateEvent,
        .lowHeartRateEvent, .irregularHeartRhythmEvent, .lowCardioFitnessEvent,
    ]

    func sleep(
        _ value: HKCategoryValueSleepAnalysis, from start: TimeInterval, to end: TimeInterval
    ) -> HKCategorySample {
        HKCategorySample(type: HKCategoryType(.sleepAnalysis), value: value.rawValue, start: t0 + start, end: t0 + end)
    }

    /// A store whose app may share the category types apps may write, and read them all.
    func categoryStore() async throws -> HKHealthStore {
        let store = try await authorizedStore()
        let types = Set(Self.categoryTypes.map { HKCategoryType($0) })
        let writable = types.filter { !SystemOnlyTypes.identifiers.contains($0.identifier) }
        try await store.requestAuthorization(toShare: writable, read: types)
        return store
    }

    /// The same store as the system (Apple's Health app), which writes the types apps may only read.
    func systemWriter(_ store: HKHealthStore) async throws -> HKHealthStore {
        let system = store.asClient("com.apple.health")
        let types = Set(Self.categoryTypes.map { HKCategoryType($0) })
        try await system.requestAuthorization(toShare: types, read: types)
        return system
    }

    @Test func typesAreEqualByIdentifierAndHaveApplesRawValues() {
        #expect(HKCategoryType(.sleepAnalysis) == HKObjectType.categoryType(forIdentifier: .sleepAnalysis))
        #expect(HKCategoryTypeIdentifier.appleStandHour.rawValue == "HKCategoryTypeIdentifierAppleStandHour")
        #expect(HKCategoryTypeIdentifier.mindfulSession.rawValue == "HKCategoryTypeIdentifierMindfulSession")
        #expect(
            HKObjectType.categoryType(
                forIdentifier: HKCategoryTypeIdentifier("HKCategoryTypeIdentifierNotInHealthKit")) == nil)
        #expect(HKCategoryValueSleepAnalysis.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5])
        #expect(
            HKCategoryValueSleepAnalysis.allAsleepValues == [.asleepUnspecified, .asleepCore, .asleepDeep, .asleepREM])
        #expect(HKCategoryValueAppleStandHour.idle.rawValue == 1 && HKCategoryValue.notApplicable.rawValue == 0)
        #expect(HKCategoryValueLowCardioFitnessEvent.lowFitness.rawValue == 1)
        #expect(!HKCategoryType(.sleepAnalysis).requiresPerObjectAuthorization())
        #expect(!HKObjectType.workoutType().requiresPerObjectAuthorization())
    }

    @Test func samplesSaveQueryAndDelete() async throws {
        let store = try await categoryStore()
        let inBed = sleep(.inBed, from: 0, to: 8 * 3600)
        let deep = sleep(.asleepDeep, from: 3600, to: 5400)
        let stand = HKCategorySample(
            type: HKCategoryType(.appleStandHour), value: HKCategoryValueAppleStandHour.stood.rawValue,
            start: t0, end: t0 + 3600, metadata: [HKMetadataKeyWasUserEntered: true])
        try await store.save([inBed, deep])
        try await systemWriter(store).save(stand)

        let night = try await HKSampleQueryDescriptor(
            predicates: [.categorySample(type: HKCategoryType(.sleepAnalysis))],
            sortDescriptors: [SortDescriptor(\.startDate)]
        ).result(for: store)
        #expect(
            night.map(\.value) == [
                HKCategoryValueSleepAnalysis.inBed.rawValue, HKCategoryValueSleepAnalysis.asleepDeep.rawValue,
            ])
        #expect(night.map(\.uuid) == [inBed.uuid, deep.uuid])
        #expect(
            night.allSatisfy {
                $0.categoryType == HKCategoryType(.sleepAnalysis)
                    && $0.sourceRevision.source.bundleIdentifier == "tests"
            })
        let stood = try await fetch(store, HKCategoryType(.appleStandHour), nil)
        #expect((stood.first as? HKCategorySample)?.value == 0)
        #expect(stood.first?.metadata?[HKMetadataKeyWasUserEntered] as? Bool == true)

        // Anchored: the additions, then the deletion.
        let first = try await HKAnchoredObjectQueryDescriptor(
            predicates: [.categorySample(type: HKCategoryType(.sleepAnalysis))],
            anchor: nil
        ).result(for: store)
        #expect(first.addedSamples.count == 2)
        try await store.delete(deep)
        let next = try await HKAnchoredObjectQueryDescriptor(
            predicates: [.categorySample(type: HKCategoryType(.sleepAnalysis))],
            anchor: first.newAnchor
        ).result(for: store)
        #expect(next.addedSamples.isEmpty && next.deletedObjects.map(\.uuid) == [deep.uuid])
        #expect(try await fetch(store, HKCategoryType(.sleepAnalysis), nil).map(\.uuid) == [inBed.uuid])

        // A date predicate works on them as on any sample.
        let early = try await fetch(
            store, HKCategoryType(.sleepAnalysis), HKQuery.predicateForSamples(withStart: t0 + 7 * 3600, end: nil))
        #expect(early.map(\.uuid) == [inBed.uuid])
    }

    @Test func valuesTheTypeDoesNotDefineAndUnauthorizedTypesFail() async throws {
        let store = try await categoryStore()
        await expectHKError(.errorInvalidArgument) {
            try await store.save(
                HKCategorySample(type: HKCategoryType(.sleepAnalysis), value: 9, start: t0, end: t0 + 60))
        }
        await expectHKError(.errorInvalidArgument) {
            try await store.save(
                HKCategorySample(type: HKCategoryType(.mindfulSession), value: 0, start: t0 + 60, end: t0))
        }
        let system = try await systemWriter(store)
        await expectHKError(.errorInvalidArgument) {
            try await system.save(
                HKCategorySample(type: HKCategoryType(.lowCardioFitnessEvent), value: 0, start: t0, end: t0))
        }
        #expect(try await fetch(store, HKCategoryType(.sleepAnalysis), nil).isEmpty)
        // Another client that never asked for the type cannot save it (HealthKit: not determined).
        let other = store.asClient("other")
        await expectHKError(.errorAuthorizationNotDetermined) {
            try await other.save(
                HKCategorySample(type: HKCategoryType(.mindfulSession), value: 0, start: t0, end: t0 + 600))
        }
    }

    @Test func theyReopenFromTheFileAndArchive() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("store.sqlite")
        let event = HKCategorySample(
            type: HKCategoryType(.highHeartRateEvent), value: HKCategoryValue.notApplicable.rawValue,
            start: t0, end: t0 + 600,
            metadata: [
                HKMetadataKeyHeartRateEventThreshold: HKQuantity(
                    unit: .count().unitDivided(by: .minute()), doubleValue: 120)
            ])
        do {
            // Heart-rate notifications are the system's to write (Apple's Health app here).
            let store = try await authorizedStore(client: "com.apple.health", databasePath: path)
            try await store.requestAuthorization(
                toShare: [HKCategoryType(.highHeartRateEvent)], read: [HKCategoryType(.highHeartRateEvent)])
            try await store.save(event)
        }
        let reopened = try await authorizedStore(databasePath: path)
        try await reopened.requestAuthorization(toShare: [], read: [HKCategoryType(.highHeartRateEvent)])
        let read = try #require(
            try await fetch(reopened, HKCategoryType(.highHeartRateEvent), nil).first as? HKCategorySample)
        #expect(read.uuid == event.uuid && read.value == 0 && read.startDate == t0 && read.endDate == t0 + 600)
        let data = try NSKeyedArchiver.archivedData(withRootObject: read, requiringSecureCoding: true)
        let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: HKCategorySample.self, from: data))
        #expect(back.uuid == event.uuid && back.value == 0 && back.categoryType == HKCategoryType(.highHeartRateEvent))
    }

    @Test func condensingLeavesCategorySamplesOfAWorkoutAlone() async throws {
        let store = try await categoryStore()
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration(.running), device: nil)
        try await builder.beginCollection(at: t0)
        let sessions = (0 ..< 3).map { hour in
            HKCategorySample(
                type: HKCategoryType(.mindfulSession), value: 0, start: t0 + Double(hour) * 600,
                end: t0 + Double(hour + 1) * 600)
        }
        try await builder.addSamples(sessions + (0 ..< 30).map { heartRate(140, at: Double($0)) })
        try await builder.endCollection(at: t0 + 1800)
        let workout = try #require(try await builder.finishWorkout())
        _ = try await store.condenseWorkout(workout)
        let kept = try await fetch(store, HKCategoryType(.mindfulSession), HKQuery.predicateForObjects(from: workout))
        #expect(Set(kept.map(\.uuid)) == Set(sessions.map(\.uuid)))
        // The workout has no statistics for category types: they are counted, not summed.
        #expect(workout.allStatistics.keys.allSatisfy { $0.identifier.hasPrefix("HKQuantityTypeIdentifier") })
    }
}

/// The code of Apple's documentation of HKCategoryValueSleepAnalysis ("To record a sleep sample…"), with only the
/// import changed; the dates and saving it are ours.
@Suite(.timeLimit(.minutes(1))) struct AppleSleepSampleDocumentationTests {
    @Test func recordingADeepSleepSample() async throws {
        let startDate = t0, endDate = t0 + 1800

        // --- Apple:
        let sleepSampleType = HKCategoryType(.sleepAnalysis)
        let sleepCategory = HKCategoryValueSleepAnalysis.asleepDeep.rawValue
        let deepSleepSample = HKCategorySample(
            type: sleepSampleType,
            value: sleepCategory,
            start: startDate,
            end: endDate)
        // ---

        let store = try await authorizedStore()
        try await store.requestAuthorization(toShare: [sleepSampleType], read: [sleepSampleType])
        try await store.save(deepSleepSample)
        let read = try await HKSampleQueryDescriptor(
            predicates: [.categorySample(type: sleepSampleType)], sortDescriptors: []
        )
        .result(for: store)
        #expect(read.map(\.value) == [HKCategoryValueSleepAnalysis.asleepDeep.rawValue])
        #expect(
            HKCategoryValueSleepAnalysis.allAsleepValues.contains(
                HKCategoryValueSleepAnalysis(rawValue: read[0].value)!))
    }
}
