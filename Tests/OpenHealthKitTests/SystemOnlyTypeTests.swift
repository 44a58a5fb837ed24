import Foundation
import Testing

@testable import OpenHealthKit

/// Types only the system writes (heart-rate notifications, stand hours, exercise time): apps may read them, never
/// share them. HealthKit: the documentation of `highHeartRateEvent` ("you can't request authorization to share
/// them"); asking anyway raises "Authorization to share the following types is disallowed", an error here.
@Suite(.timeLimit(.minutes(1))) struct SystemOnlyTypeTests {
    static let readOnly: [HKSampleType] = [
        HKCategoryType(.highHeartRateEvent), HKCategoryType(.lowHeartRateEvent),
        HKCategoryType(.irregularHeartRhythmEvent), HKCategoryType(.lowCardioFitnessEvent),
        HKCategoryType(.appleStandHour), HKQuantityType(.appleExerciseTime), HKQuantityType(.appleStandTime),
        HKQuantityType(.walkingHeartRateAverage), HKQuantityType(.nikeFuel),
    ]

    func event(_ identifier: HKCategoryTypeIdentifier = .highHeartRateEvent) -> HKCategorySample {
        HKCategorySample(type: HKCategoryType(identifier), value: 0, start: t0, end: t0 + 600)
    }

    @Test(arguments: readOnly) func askingToShareOneFailsAndDecidesNothing(type: HKSampleType) async throws {
        let store = HKHealthStore.inMemory(clientIdentifier: "app")
        let heartRate = HKQuantityType(.heartRate)
        let error = await expectHKError(.errorInvalidArgument) {
            try await store.requestAuthorization(toShare: [heartRate, type], read: [type])
        }
        #expect(
            error?.message.hasPrefix("Authorization to share the following types is disallowed: \(type.identifier).")
                == true)
        // The whole request was refused: not even heart rate was decided.
        #expect(store.authorizationStatus(for: heartRate) == .notDetermined)
        #expect(try await store.statusForAuthorizationRequest(toShare: [heartRate], read: []) == .shouldRequest)
        // Asking only to read it is what HealthKit allows.
        try await store.requestAuthorization(toShare: [], read: [type])
        #expect(store.authorizationStatus(for: type) == .sharingDenied)
    }

    @Test func theCompletionFormReportsFalseWithTheError() async throws {
        let store = HKHealthStore.inMemory(clientIdentifier: "app")
        let (success, error) = await withCheckedContinuation { continuation in
            store.requestAuthorization(toShare: [HKCategoryType(.appleStandHour)], read: nil) { success, error in
                continuation.resume(returning: (success, error as? HKError))
            }
        }
        #expect(!success && error?.code == .errorInvalidArgument)
        await expectHKError(.errorInvalidArgument) {
            _ = try await store.statusForAuthorizationRequest(toShare: [HKQuantityType(.appleExerciseTime)], read: [])
        }
    }

    @Test func anAppCannotSaveOneNorBeGrantedItButTheSystemCanAndTheAppReadsIt() async throws {
        let app = HKHealthStore.inMemory(clientIdentifier: "app")
        let type = HKCategoryType(.highHeartRateEvent)
        try await app.requestAuthorization(toShare: [], read: [type])
        await expectHKError(.errorAuthorizationDenied) { try await app.save(self.event()) }
        #expect(throws: HKError.self) { try app.setAuthorizationStatus(.sharingAuthorized, forSharing: type) }
        #expect(app.authorizationStatus(for: type) == .sharingDenied)

        // Apple's Health app (an import of Apple's data) is the system: it writes them, and the app reads them.
        let system = app.asClient("com.apple.health")
        try await system.requestAuthorization(toShare: [type], read: [type])
        #expect(system.authorizationStatus(for: type) == .sharingAuthorized)
        let saved = event()
        try await system.save(saved)
        let read = try await HKSampleQueryDescriptor(predicates: [.categorySample(type: type)], sortDescriptors: [])
            .result(for: app)
        #expect(read.map(\.uuid) == [saved.uuid])
        #expect(read.first?.sourceRevision.source.bundleIdentifier == "com.apple.health")
        // Nothing the app tried was stored.
        #expect(read.count == 1)
    }

    @Test func aWorkoutBuilderCannotAddOne() async throws {
        let store = try await authorizedStore()
        try await store.requestAuthorization(toShare: [], read: [HKCategoryType(.appleStandHour)])
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .walking
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: nil)
        try await builder.beginCollection(at: t0)
        await expectHKError(.errorAuthorizationDenied) {
            try await builder.addSamples([self.event(.appleStandHour)])
        }
    }

    @Test func writableCategoryTypesStayShareable() async throws {
        let store = HKHealthStore.inMemory(clientIdentifier: "app")
        let types: Set<HKSampleType> = [HKCategoryType(.sleepAnalysis), HKCategoryType(.mindfulSession)]
        try await store.requestAuthorization(toShare: types, read: [])
        #expect(types.allSatisfy { store.authorizationStatus(for: $0) == .sharingAuthorized })
    }
}
