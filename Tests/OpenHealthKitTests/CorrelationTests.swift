import Foundation
import HealthKitModel
import Testing

@testable import OpenHealthKit

/// Correlations kept whole in the store, on both backends: saved with the samples they hold, read back with them
/// (`HKSampleQuery`, `HKSampleQueryDescriptor`, `HKCorrelationQuery`), found by what they hold, deleted with it,
/// authorized through the types they hold as HealthKit does, and `predicateForObjectsWithNoCorrelation()`.
@Suite(.postgresCluster, .timeLimit(.minutes(1))) struct CorrelationTests {
    static let pressureTypes: Set<HKSampleType> = [
        HKQuantityType(.bloodPressureSystolic), HKQuantityType(.bloodPressureDiastolic),
    ]
    static let foodTypes: Set<HKSampleType> = [
        HKQuantityType(.dietaryEnergyConsumed), HKQuantityType(.dietaryProtein),
    ]

    /// A store of `kind` whose client `client` may share and read `types` (and only them).
    func store(
        _ kind: StoreKind, _ directory: borrowing TemporaryDirectory, _ types: Set<HKSampleType>,
        client: String = "tests", name given: String? = nil
    ) async throws -> (store: HKHealthStore, name: String) {
        let name: String
        if let given { name = given } else { name = try await kind.freshStoreName(directory) }
        let store = try await HKHealthStore.open(databasePath: name, clientIdentifier: client)
        try await store.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
        return (store, name)
    }

    func pressure(_ identifier: HKQuantityTypeIdentifier, _ mmHg: Double, at date: Date = t0) -> HKQuantitySample {
        HKQuantitySample(
            type: HKQuantityType(identifier), quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: mmHg),
            start: date, end: date)
    }

    func reading(_ systolic: Double, _ diastolic: Double, at date: Date = t0) -> HKCorrelation {
        HKCorrelation(
            type: HKCorrelationType(.bloodPressure), start: date, end: date,
            objects: [
                pressure(.bloodPressureSystolic, systolic, at: date),
                pressure(.bloodPressureDiastolic, diastolic, at: date),
            ],
            metadata: [HKMetadataKeyWasUserEntered: true])
    }

    func meal(kilocalories: Double, proteinGrams: Double?, at date: Date) -> HKCorrelation {
        var objects: Set<HKSample> = [
            HKQuantitySample(
                type: HKQuantityType(.dietaryEnergyConsumed),
                quantity: HKQuantity(unit: .kilocalorie(), doubleValue: kilocalories), start: date, end: date)
        ]
        if let proteinGrams {
            objects.insert(
                HKQuantitySample(
                    type: HKQuantityType(.dietaryProtein),
                    quantity: HKQuantity(unit: .gram(), doubleValue: proteinGrams),
                    start: date, end: date))
        }
        return HKCorrelation(
            type: HKCorrelationType(.food), start: date, end: date, objects: objects,
            metadata: [HKMetadataKeyFoodType: "meal \(Int(kilocalories))"])
    }

    func correlations(
        _ store: HKHealthStore, _ type: HKCorrelationType, predicate: NSPredicate? = nil,
        samplePredicates: [HKSampleType: NSPredicate]? = nil
    ) async throws -> [HKCorrelation] {
        try await withCheckedThrowingContinuation { continuation in
            store.execute(
                HKCorrelationQuery(type: type, predicate: predicate, samplePredicates: samplePredicates) {
                    _, correlations, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(returning: correlations ?? [])
                    }
                })
        }
    }

    func millimetres(_ correlation: HKCorrelation?, _ identifier: HKQuantityTypeIdentifier) -> [Double] {
        (correlation?.objects(for: HKQuantityType(identifier)) ?? []).compactMap {
            ($0 as? HKQuantitySample)?.quantity.doubleValue(for: .millimeterOfMercury())
        }
    }

    @Test(arguments: StoreKind.available) func aReadingIsSavedAndReadBackWhole(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        // As in HealthKit, the client asks for the types the correlation holds, never the correlation type.
        let (store, _) = try await store(kind, directory, Self.pressureTypes)
        let saved = reading(120, 80)
        let alone = pressure(.bloodPressureSystolic, 135, at: t0 + 3600)
        try await store.save([saved, alone])
        try await store.save(saved)  // saving it again stores nothing more

        let read = try await fetch(store, HKCorrelationType(.bloodPressure), nil)
        #expect(read.count == 1)
        let back = try #require(read.first as? HKCorrelation)
        #expect(back.uuid == saved.uuid && back.correlationType == HKCorrelationType(.bloodPressure))
        #expect(back.startDate == t0 && back.metadata?[HKMetadataKeyWasUserEntered] as? Bool == true)
        #expect(back.sourceRevision.source.bundleIdentifier == "tests")
        #expect(Set(back.objects.map(\.uuid)) == Set(saved.objects.map(\.uuid)))
        #expect(
            millimetres(back, .bloodPressureSystolic) == [120] && millimetres(back, .bloodPressureDiastolic) == [80])

        // The samples it holds are samples like any other: queried, aggregated.
        let systolic = try await fetch(store, HKQuantityType(.bloodPressureSystolic), nil)
        #expect(systolic.count == 2)
        // …and predicateForObjectsWithNoCorrelation() tells them from the one saved alone.
        let uncorrelated = try await fetch(
            store, HKQuantityType(.bloodPressureSystolic), HKQuery.predicateForObjectsWithNoCorrelation())
        #expect(uncorrelated.map(\.uuid) == [alone.uuid])
        let held = try await fetch(
            store, HKQuantityType(.bloodPressureSystolic),
            NSCompoundPredicate(notPredicateWithSubpredicate: HKQuery.predicateForObjectsWithNoCorrelation()))
        #expect(held.map(\.uuid) == saved.objects(for: HKQuantityType(.bloodPressureSystolic)).map(\.uuid))

        // The async descriptor and HKCorrelationQuery read the same.
        let described = try await HKSampleQueryDescriptor(
            predicates: [.correlation(type: HKCorrelationType(.bloodPressure))], sortDescriptors: []
        ).result(for: store)
        #expect(described.map(\.uuid) == [saved.uuid] && described.first?.objects.count == 2)
        let queried = try await correlations(store, HKCorrelationType(.bloodPressure))
        #expect(queried.map(\.uuid) == [saved.uuid] && millimetres(queried.first, .bloodPressureSystolic) == [120])
    }

    @Test(arguments: StoreKind.available) func askingForACorrelationTypeIsDisallowed(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let (store, _) = try await store(kind, directory, [])
        let bloodPressure = HKCorrelationType(.bloodPressure)
        let share = await #expect(throws: HKError.self) {
            try await store.requestAuthorization(toShare: [bloodPressure], read: [])
        }
        #expect(share?.code == .errorInvalidArgument)
        #expect(
            share?.localizedDescription.hasPrefix(
                "Authorization to share the following types is disallowed: HKCorrelationTypeIdentifierBloodPressure.")
                == true)
        let read = await #expect(throws: HKError.self) {
            try await store.requestAuthorization(
                toShare: [HKQuantityType(.bloodPressureSystolic)], read: [bloodPressure])
        }
        #expect(
            read?.localizedDescription.hasPrefix(
                "Authorization to read the following types is disallowed: HKCorrelationTypeIdentifierBloodPressure.")
                == true)
        // Nothing was decided by the refused request.
        #expect(store.authorizationStatus(for: HKQuantityType(.bloodPressureSystolic)) == .notDetermined)
        await #expect(throws: HKError.self) {
            try await store.statusForAuthorizationRequest(toShare: [], read: [HKCorrelationType(.food)])
        }
        // Without the types it holds, a correlation is not saved.
        let refused = await #expect(throws: HKError.self) { try await store.save(reading(120, 80)) }
        #expect(refused?.code == .errorAuthorizationNotDetermined)
    }

    @Test(arguments: StoreKind.available) func theQueryTestsWhatCorrelationsHold(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let (store, _) = try await store(kind, directory, Self.foodTypes)
        let breakfast = meal(kilocalories: 300, proteinGrams: 10, at: t0)
        let lunch = meal(kilocalories: 800, proteinGrams: nil, at: t0 + 4 * 3600)
        let dinner = meal(kilocalories: 650, proteinGrams: 40, at: t0 + 10 * 3600)
        try await store.save([breakfast, lunch, dinner])
        let food = HKCorrelationType(.food)
        let energy = HKQuantityType(.dietaryEnergyConsumed)
        let protein = HKQuantityType(.dietaryProtein)

        #expect(Set(try await correlations(store, food).map(\.uuid)) == [breakfast.uuid, lunch.uuid, dinner.uuid])
        #expect(Set(try await correlations(store, food, samplePredicates: [:]).map(\.uuid)).count == 3)
        // One test: meals of more than 500 kcal.
        let big = HKQuery.predicateForQuantitySamples(
            with: .greaterThan, quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 500))
        #expect(
            Set(try await correlations(store, food, samplePredicates: [energy: big]).map(\.uuid))
                == [lunch.uuid, dinner.uuid])
        // Two tests are alternatives: more than 500 kcal, or any protein at all.
        let anyProtein = HKQuery.predicateForQuantitySamples(
            with: .greaterThan, quantity: HKQuantity(unit: .gram(), doubleValue: 0))
        #expect(
            Set(try await correlations(store, food, samplePredicates: [energy: big, protein: anyProtein]).map(\.uuid))
                == [breakfast.uuid, lunch.uuid, dinner.uuid])
        // The correlations' own predicate, with a test of their contents: the afternoon's meals with protein.
        let afternoon = HKQuery.predicateForSamples(withStart: t0 + 3600, end: nil)
        let found = try await correlations(
            store, food, predicate: afternoon, samplePredicates: [protein: anyProtein])
        #expect(found.map(\.uuid) == [dinner.uuid])
        #expect(found.first?.metadata?[HKMetadataKeyFoodType] as? String == "meal 650")
        #expect(found.first?.objects.count == 2)
        // A food query never returns blood pressure.
        #expect(try await correlations(store, HKCorrelationType(.bloodPressure)).isEmpty)
    }

    @Test(arguments: StoreKind.available) func aReaderSeesWhatItMayReadOfACorrelation(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let (writer, name) = try await store(kind, directory, Self.pressureTypes)
        let saved = reading(118, 76)
        try await writer.save(saved)

        // Another app allowed to read systolic pressure only: the reading, with its systolic sample.
        let (systolicOnly, _) = try await store(
            kind, directory, [HKQuantityType(.bloodPressureSystolic)], client: "org.example.systolic", name: name)
        let partial = try await correlations(systolicOnly, HKCorrelationType(.bloodPressure))
        #expect(partial.map(\.uuid) == [saved.uuid])
        #expect(millimetres(partial.first, .bloodPressureSystolic) == [118])
        #expect(millimetres(partial.first, .bloodPressureDiastolic).isEmpty)

        // An app that may read neither sees no reading, as if there were none; one allowed food types neither.
        for (client, types) in [("org.example.none", Set<HKSampleType>()), ("org.example.food", Self.foodTypes)] {
            let (reader, _) = try await store(kind, directory, types, client: client, name: name)
            #expect(try await correlations(reader, HKCorrelationType(.bloodPressure)).isEmpty, "\(client)")
            #expect(try await fetch(reader, HKCorrelationType(.bloodPressure), nil).isEmpty, "\(client)")
        }
    }

    @Test(arguments: StoreKind.available) func deletingACorrelationDeletesWhatItHolds(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let (store, _) = try await store(kind, directory, Self.pressureTypes)
        let morning = reading(125, 82, at: t0)
        let evening = reading(130, 85, at: t0 + 12 * 3600)
        try await store.save([morning, evening])
        let systolic = HKSamplePredicate.quantitySample(type: HKQuantityType(.bloodPressureSystolic))
        let before = try await HKAnchoredObjectQueryDescriptor(predicates: [systolic], anchor: nil).result(for: store)
        #expect(before.addedSamples.count == 2)

        try await store.delete(morning)
        #expect(try await fetch(store, HKCorrelationType(.bloodPressure), nil).map(\.uuid) == [evening.uuid])
        #expect(try await fetch(store, HKQuantityType(.bloodPressureDiastolic), nil).count == 1)
        // An anchored query of the samples it held hears of their deletion.
        let after = try await HKAnchoredObjectQueryDescriptor(predicates: [systolic], anchor: before.newAnchor)
            .result(for: store)
        #expect(
            after.deletedObjects.map(\.uuid) == morning.objects(for: HKQuantityType(.bloodPressureSystolic)).map(\.uuid)
        )

        // Deleting by type and predicate counts the correlations, and takes what they hold too.
        let count = try await store.deleteObjects(
            of: HKCorrelationType(.bloodPressure), predicate: HKQuery.predicateForSamples(withStart: t0, end: nil))
        #expect(count == 1)
        #expect(try await fetch(store, HKQuantityType(.bloodPressureSystolic), nil).isEmpty)
        #expect(try await fetch(store, HKQuantityType(.bloodPressureDiastolic), nil).isEmpty)
    }
}
