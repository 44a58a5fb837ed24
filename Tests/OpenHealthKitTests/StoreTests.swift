import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

@Suite(.postgresCluster, .timeLimit(.minutes(1))) struct StoreTests {
    @Test func defaultStorePathFollowsEnvironment() {
        #expect(HKHealthStore.defaultStorePath.hasSuffix(".sqlite"))
        // The rule, checked through a child process so the environment is the test's own.
        let cases: [([String: String], String)] = [
            (["OPENHEALTHKIT_STORE": "/x/y.sqlite", "XDG_DATA_HOME": "/xdg", "HOME": "/home/a"], "/x/y.sqlite"),
            (["XDG_DATA_HOME": "/xdg", "HOME": "/home/a"], "/xdg/openhealthkit/health.sqlite"),
            (["XDG_DATA_HOME": "relative", "HOME": "/home/a"], "/home/a/.local/share/openhealthkit/health.sqlite"),
            (["HOME": "/home/a"], "/home/a/.local/share/openhealthkit/health.sqlite"),
        ]
        for (environment, expected) in cases {
            #expect(HKHealthStore.defaultStorePath(environment: environment) == expected)
        }
    }

    @Test func fileIsPrivateAndSurvivesReopening() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("nested/store/health.sqlite")
        do {
            let store = try HKHealthStore(databasePath: path, clientIdentifier: "tests")
            try await store.requestAuthorization(toShare: allTypes, read: [])
            try await store.save(heartRate(61, at: 0))
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: (path as NSString).deletingLastPathComponent)
        #expect((folder[.posixPermissions] as? Int) == 0o700)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            let sidecar = try FileManager.default.attributesOfItem(atPath: path + suffix)
            #expect((sidecar[.posixPermissions] as? Int) == 0o600, "\(suffix) must be private too")
        }

        let reopened = try HKHealthStore(databasePath: path, clientIdentifier: "tests")
        #expect(reopened.authorizationStatus(for: HKQuantityType(.heartRate)) == .sharingAuthorized)
        let samples = try await fetch(reopened, HKQuantityType(.heartRate), nil)
        #expect(samples.count == 1)
        #expect((samples.first as? HKQuantitySample)?.quantity.doubleValue(for: HKUnit(from: "count/min")) == 61)
    }

    @Test func directoryAsStorePathIsAClearError() async throws {
        let directory = try TemporaryDirectory()
        let error = await expectHKError(.errorDatabaseInaccessible) {
            _ = try HKHealthStore(databasePath: directory.path)
        }
        #expect(error?.message.contains("is a directory") == true)
    }

    @Test func fileThatIsNotAStoreIsLeftUntouched() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("notes.sqlite")
        let content = Data(repeating: 0x41, count: 8192)
        try content.write(to: URL(fileURLWithPath: path))
        let error = await expectHKError(.errorDatabaseInaccessible) {
            _ = try HKHealthStore(databasePath: path)
        }
        #expect(error?.message.contains("not an OpenHealthKit store") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == content)
    }

    @Test func defaultInitializerReportsErrorsOnUse() async throws {
        // HKHealthStore() cannot throw, as in HealthKit: a store that cannot open reports on every call.
        let directory = try TemporaryDirectory()
        let store = HKHealthStore(openingLazily: directory.path, clientIdentifier: "tests")
        await expectHKError(.errorDatabaseInaccessible) { try await store.save(heartRate(60, at: 0)) }
        await expectHKError(.errorDatabaseInaccessible) { _ = try await fetch(store, HKQuantityType(.heartRate), nil) }
    }

    @Test(arguments: StoreKind.available) func addBeforeWorkoutIsSavedFailsAndStoresNothing(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        let workout = legacy.workout(activityType: .running, start: t0, end: t0 + 600)
        let error = await expectHKError(.errorInvalidArgument) {
            try await legacy.add([heartRate(90, at: 5)], to: workout, in: store)
        }
        #expect(error?.message.contains("must be saved") == true)
        #expect(try await fetch(store, HKQuantityType(.heartRate), nil).isEmpty)
    }

    @Test(arguments: StoreKind.available) func incompatibleUnitIsRejectedAndNothingIsLost(kind: StoreKind) async throws
    {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        try await store.save(heartRate(100, at: 0))
        let wrong = HKQuantitySample(
            type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: .meter(), doubleValue: 3),
            start: t0, end: t0 + 1)
        let error = await expectHKError(.errorInvalidArgument) {
            try await store.save([heartRate(101, at: 1), wrong])
        }
        #expect(error?.message.contains("not compatible") == true)
        #expect(throws: HKError.self) {
            _ = try HKQuantitySample.validated(
                type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: .meter(), doubleValue: 3),
                start: t0, end: t0 + 1)
        }
        // The batch is all or nothing; the earlier sample is still there.
        let samples = try await fetch(store, HKQuantityType(.heartRate), nil)
        #expect(samples.map { ($0 as! HKQuantitySample).quantity.doubleValue(for: HKUnit(from: "count/min")) } == [100])
    }

    @Test(arguments: StoreKind.available) func startAfterEndAndBadMetadataAreRejected(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        let backwards = HKQuantitySample(
            type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: 60),
            start: t0 + 10, end: t0)
        await expectHKError(.errorInvalidArgument) { try await store.save(backwards) }
        let badMetadata = HKQuantitySample(
            type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: 60),
            start: t0, end: t0, metadata: ["array": [1, 2]])
        await expectHKError(.errorInvalidArgument) { try await store.save(badMetadata) }
    }

    @Test func garbageUnitStringsThroughThrowingAPI() async throws {
        for text in ["", "bpm", "count//min", "kg^", "m)", "furlong/fortnight"] {
            #expect(throws: HKError.self) { _ = try HKUnit.parse(text) }
        }
    }

    @Test(arguments: StoreKind.available) func metadataRoundTripsWithTypes(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        let when = Date(timeIntervalSinceReferenceDate: 12345.5)
        let sample = HKQuantitySample(
            type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: HKUnit(from: "count/s"), doubleValue: 2),
            start: t0, end: t0 + 1,
            device: HKDevice(
                name: "Strap", manufacturer: "ACME", model: "HR1", hardwareVersion: nil,
                firmwareVersion: "1.2", softwareVersion: nil, localIdentifier: "AA:BB:CC:DD:EE:FF",
                udiDeviceIdentifier: nil),
            metadata: [
                "s": "text", "i": 7, "d": 2.5, "b": true, "date": when,
                "q": HKQuantity(unit: .meter(), doubleValue: 25), HKMetadataKeyHeartRateSensorLocation: 1,
            ])
        try await store.save(sample)
        let stored = try #require(try await fetch(store, HKQuantityType(.heartRate), nil).first as? HKQuantitySample)
        let metadata = try #require(stored.metadata)
        #expect(metadata["s"] as? String == "text")
        #expect(metadata["i"] as? Int == 7)
        #expect(metadata["d"] as? Double == 2.5)
        #expect(metadata["b"] as? Bool == true)
        #expect(metadata["date"] as? Date == when)
        #expect((metadata["q"] as? HKQuantity)?.doubleValue(for: .meter()) == 25)
        #expect(stored.device?.localIdentifier == "AA:BB:CC:DD:EE:FF")
        #expect(stored.device?.firmwareVersion == "1.2")
        // The sample keeps the unit it was saved in.
        #expect(stored.quantity.description == sample.quantity.description)
        #expect(stored.quantity.doubleValue(for: HKUnit(from: "count/min")) == 120)
    }

    @Test func deleteRemovesOnlyOwnObjects() async throws {
        let store = try await authorizedStore(client: "a")
        let other = store.asClient("b")
        try await other.requestAuthorization(toShare: allTypes, read: Set(allTypes.map { $0 as HKObjectType }))
        let mine = heartRate(60, at: 0)
        let theirs = heartRate(70, at: 1)
        try await store.save(mine)
        try await other.save(theirs)
        await expectHKError(.errorAuthorizationDenied) { try await store.delete(theirs) }
        try await store.delete(mine)
        let left = try await fetch(store, HKQuantityType(.heartRate), nil)
        #expect(left.map(\.uuid) == [theirs.uuid])
        try await other.save(heartRate(71, at: 2))
        let count = try await other.deleteObjects(
            of: HKQuantityType(.heartRate),
            predicate: HKQuery.predicateForSamples(withStart: t0, end: t0 + 10, options: []))
        #expect(count == 2)
        #expect(try await fetch(store, HKQuantityType(.heartRate), nil).isEmpty)
    }

    @Test(arguments: StoreKind.available) func savingTheSameObjectTwiceIsHarmless(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        let sample = heartRate(60, at: 0)
        try await store.save(sample)
        try await store.save(sample)
        #expect(try await fetch(store, HKQuantityType(.heartRate), nil).count == 1)
    }
}
