import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// Source, device and metadata predicates, run as SQL by the store and in memory by `evaluate(with:)`.
@Suite(.postgresCluster, .timeLimit(.minutes(1))) struct ObjectFilterTests {
    static let strap = HKDevice(
        name: "Strap", manufacturer: "Polar", model: "H10", hardwareVersion: nil, firmwareVersion: nil,
        softwareVersion: nil, localIdentifier: "A0:00:00:00:00:01", udiDeviceIdentifier: nil)
    static let meter = HKDevice(
        name: "Pedals", manufacturer: "Favero", model: "Assioma", hardwareVersion: nil, firmwareVersion: nil,
        softwareVersion: nil, localIdentifier: nil, udiDeviceIdentifier: nil)

    /// Three heart-rate samples: 60 bpm by "tests" from the strap (metadata: motion context 2, a note), 61 by "watch"
    /// from the meter (metadata: motion context 1), 62 by "tests" with no device or metadata.
    func store(_ kind: StoreKind, _ directory: borrowing TemporaryDirectory) async throws -> HKHealthStore {
        let store = try await kind.authorizedStore(directory)
        let watch = store.asClient("watch")
        try await watch.requestAuthorization(toShare: [HKQuantityType(.heartRate)], read: [])
        let bpm = HKUnit(from: "count/min")
        func sample(_ value: Double, _ at: Double, _ device: HKDevice?, _ metadata: [String: Any]?) -> HKQuantitySample
        {
            HKQuantitySample(
                type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: bpm, doubleValue: value),
                start: t0 + at, end: t0 + at + 1, device: device, metadata: metadata)
        }
        try await store.save(
            sample(
                60, 0, Self.strap,
                [
                    HKMetadataKeyHeartRateMotionContext: HKHeartRateMotionContext.active.rawValue,
                    "note": "intervals",
                ]))
        try await watch.save(
            sample(
                61, 1, Self.meter, [HKMetadataKeyHeartRateMotionContext: HKHeartRateMotionContext.sedentary.rawValue]))
        try await store.save(sample(62, 2, nil, nil))
        return store
    }

    func values(_ store: HKHealthStore, _ predicate: NSPredicate) async throws -> [Double] {
        let samples = try await fetch(store, HKQuantityType(.heartRate), predicate)
        // The store's SQL and the in-memory evaluation agree on every sample.
        let all = try await fetch(store, HKQuantityType(.heartRate), nil)
        let inMemory: Set<UUID> = Set(all.filter { predicate.evaluate(with: $0) }.map(\.uuid))
        let inStore: Set<UUID> = Set(samples.map(\.uuid))
        #expect(inMemory == inStore)
        return samples.compactMap { ($0 as? HKQuantitySample)?.quantity.doubleValue(for: HKUnit(from: "count/min")) }
            .sorted()
    }

    @Test(arguments: StoreKind.available) func sourcesAndRevisions(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await store(kind, directory)
        let watch = try #require(
            try await fetch(store, HKQuantityType(.heartRate), nil).first {
                $0.sourceRevision.source.bundleIdentifier == "watch"
            })
        #expect(try await values(store, HKQuery.predicateForObjects(from: watch.sourceRevision.source)) == [61])
        let tests = HKSource(name: ProcessInfo.processInfo.processName, bundleIdentifier: "tests")
        #expect(
            try await values(store, HKQuery.predicateForObjects(from: [tests, watch.sourceRevision.source])) == [
                60, 61, 62,
            ])
        let anyVersion = HKSourceRevision(source: tests, version: HKSourceRevisionAnyVersion)
        #expect(try await values(store, HKQuery.predicateForObjects(from: Set([anyVersion]))) == [60, 62])
        let otherVersion = HKSourceRevision(source: tests, version: "9.9")
        #expect(try await values(store, HKQuery.predicateForObjects(from: Set([otherVersion]))) == [])
    }

    @Test(arguments: StoreKind.available) func devices(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await store(kind, directory)
        #expect(try await values(store, HKQuery.predicateForObjects(from: Set([Self.strap]))) == [60])
        #expect(
            try await values(
                store,
                HKQuery.predicateForObjects(
                    withDeviceProperty: HKDevicePropertyKeyManufacturer,
                    allowedValues: ["Favero", "Garmin"])) == [61])
        await expectHKError(.errorInvalidArgument) {
            _ = try await fetch(
                store, HKQuantityType(.heartRate),
                HKQuery.predicateForObjects(withDeviceProperty: "colour", allowedValues: ["red"]))
        }
    }

    @Test(arguments: StoreKind.available) func metadata(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await store(kind, directory)
        #expect(
            try await values(store, HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeyHeartRateMotionContext))
                == [60, 61])
        #expect(
            try await values(
                store,
                HKQuery.predicateForObjects(
                    withMetadataKey: HKMetadataKeyHeartRateMotionContext,
                    allowedValues: [HKHeartRateMotionContext.active.rawValue])) == [60])
        #expect(
            try await values(
                store, HKQuery.predicateForObjects(withMetadataKey: "note", allowedValues: ["intervals", "tempo"])) == [
                    60
                ])
        // Combined with NSCompoundPredicate like any HealthKit predicate.
        let notes = NSCompoundPredicate(
            notPredicateWithSubpredicate: HKQuery.predicateForObjects(withMetadataKey: "note"))
        #expect(try await values(store, notes) == [61, 62])
    }
}
