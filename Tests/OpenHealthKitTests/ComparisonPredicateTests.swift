import Foundation
import OpenHealthKit
import TestSupport
import Testing

/// `predicateForQuantitySamples(with:quantity:)` and `predicateForObjects(withMetadataKey:operatorType:value:)`,
/// run by the store as SQL and by `evaluate(with:)` in memory, against samples whose values are worked out by hand.
@Suite(.postgresCluster, .timeLimit(.minutes(1))) struct ComparisonPredicateTests {
    static let perMinute = HKUnit.count().unitDivided(by: .minute())
    static let perSecond = HKUnit.count().unitDivided(by: .second())

    /// Four heart rates: 100/min, 150/min, 2.5/s (= 2.5 × 60 = 150/min) and 200/min, one a minute from t0.
    static func heartRates() -> [HKQuantitySample] {
        [
            heartRate(100, at: 0), heartRate(150, at: 60),
            HKQuantitySample(
                type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: perSecond, doubleValue: 2.5),
                start: t0 + 120, end: t0 + 121),
            heartRate(200, at: 180),
        ]
    }

    /// The samples' start offsets from t0, sorted: which samples matched.
    static func offsets(_ samples: [HKSample]) -> [TimeInterval] {
        samples.map { $0.startDate.timeIntervalSince(t0) }.sorted()
    }

    @Test(arguments: StoreKind.available) func quantitySamplesCompareInAnyFittingUnit(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        let samples = Self.heartRates()
        try await store.save(samples)
        let type = HKQuantityType(.heartRate)
        let cases: [(_ComparisonOperator, HKQuantity, [TimeInterval])] = [
            (.greaterThan, HKQuantity(unit: Self.perMinute, doubleValue: 120), [60, 120, 180]),  // 150, 150, 200 > 120
            (.equalTo, HKQuantity(unit: Self.perMinute, doubleValue: 150), [60, 120]),  // 150/min and 2.5/s
            (.lessThan, HKQuantity(unit: Self.perSecond, doubleValue: 2), [0]),  // 2/s = 120/min > 100 only
            (.greaterThanOrEqualTo, HKQuantity(unit: Self.perSecond, doubleValue: 2.5), [60, 120, 180]),
            (.lessThanOrEqualTo, HKQuantity(unit: Self.perMinute, doubleValue: 100), [0]),
            (.notEqualTo, HKQuantity(unit: Self.perMinute, doubleValue: 150), [0, 180]),
        ]
        for (operatorType, quantity, expected) in cases {
            let predicate = HKQuery.predicateForQuantitySamples(with: operatorType, quantity: quantity)
            #expect(Self.offsets(try await fetch(store, type, predicate)) == expected, "\(operatorType) \(quantity)")
            #expect(
                Self.offsets(samples.filter { predicate.evaluate(with: $0) }) == expected,
                "in memory: \(operatorType) \(quantity)")
        }
        // Combined with a date range: 150/min or more, in the first two minutes.
        let both = NSCompoundPredicate(andPredicateWithSubpredicates: [
            HKQuery.predicateForQuantitySamples(
                with: .greaterThanOrEqualTo, quantity: HKQuantity(unit: Self.perMinute, doubleValue: 150)),
            HKQuery.predicateForSamples(withStart: t0, end: t0 + 120, options: .strictStartDate),
        ])
        #expect(Self.offsets(try await fetch(store, type, both)) == [60])
    }

    /// Code that names Apple's type (`NSComparisonPredicate.Operator.greaterThan`) gets the same predicates as code that
    /// writes `.greaterThan`: the deprecated overloads convert by raw value.
    @Test(arguments: StoreKind.available) func applesOperatorTypeMakesTheSamePredicates(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        let samples = Self.heartRates()
        try await store.save(samples)
        let quantity = HKQuantity(unit: Self.perMinute, doubleValue: 150)
        let operators: [_ComparisonOperator] = [
            .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo,
            .equalTo, .notEqualTo,
        ]
        for operatorType in operators {
            let ours = HKQuery.predicateForQuantitySamples(with: operatorType, quantity: quantity)
            #expect(
                !Self.offsets(try await fetch(store, HKQuantityType(.heartRate), ours)).isEmpty
                    || operatorType == .lessThan,
                "each comparison but < 100 matches a sample")
            let apples = legacy.predicateForQuantitySamples(
                foundationOperator: operatorType.rawValue, quantity: quantity)
            #expect(
                Self.offsets(try await fetch(store, HKQuantityType(.heartRate), apples))
                    == Self.offsets(try await fetch(store, HKQuantityType(.heartRate), ours)), "\(operatorType)")
        }
        #expect(
            _ComparisonOperator.between.rawValue == 100 && _ComparisonOperator.contains.rawValue == 99,
            "Apple's raw values")
    }

    @Test(arguments: StoreKind.available) func aUnitThatDoesNotFitOrAnOperatorThatIsNotAComparisonFailsTheQuery(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        try await store.save(Self.heartRates())
        let metres = HKQuery.predicateForQuantitySamples(
            with: .greaterThan, quantity: HKQuantity(unit: .meter(), doubleValue: 1))
        await expectHKError(.errorInvalidArgument) { _ = try await fetch(store, HKQuantityType(.heartRate), metres) }
        let like = HKQuery.predicateForQuantitySamples(
            with: .like, quantity: HKQuantity(unit: Self.perMinute, doubleValue: 1))
        let error = await expectHKError(.errorInvalidArgument) {
            _ = try await fetch(store, HKQuantityType(.heartRate), like)
        }
        #expect(error?.message == "HealthKit predicates compare with <, <=, >, >=, == or != only.")
    }

    /// Five samples with metadata: "grade" 3 (an integer), 5.5, "steep" (a string), none; "checked" a date.
    @Test(arguments: StoreKind.available) func metadataValuesCompareByKind(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        let type = HKQuantityType(.heartRate)
        func sample(_ offset: TimeInterval, _ metadata: [String: Any]?) -> HKQuantitySample {
            HKQuantitySample(
                type: type, quantity: HKQuantity(unit: Self.perMinute, doubleValue: 120), start: t0 + offset,
                end: t0 + offset + 1, metadata: metadata)
        }
        let samples = [
            sample(0, ["grade": 3, "route": "alps", "checked": t0 + 1000]),
            sample(60, ["grade": 5.5, "route": "jura", "checked": t0 + 2000]),
            sample(120, ["grade": "steep", "route": "vosges"]),
            sample(180, nil),
            sample(240, ["grade": 3.0]),
        ]
        try await store.save(samples)
        let cases: [(String, _ComparisonOperator, Any, [TimeInterval])] = [
            ("grade", .greaterThan, 4, [60]),  // 5.5 > 4; "steep" is not a number
            ("grade", .equalTo, 3, [0, 240]),  // 3 and 3.0 are the same number
            ("grade", .lessThanOrEqualTo, 5.5, [0, 60, 240]),
            ("grade", .notEqualTo, 3, [60]),  // a string or a missing key does not match
            ("grade", .equalTo, "steep", [120]),
            ("route", .greaterThanOrEqualTo, "jura", [60, 120]),  // "jura" and "vosges" sort at or after "jura"
            ("checked", .lessThan, t0 + 1500, [0]),
        ]
        for (key, operatorType, value, expected) in cases {
            let predicate = HKQuery.predicateForObjects(withMetadataKey: key, operatorType: operatorType, value: value)
            #expect(
                Self.offsets(try await fetch(store, type, predicate)) == expected, "\(key) \(operatorType) \(value)")
            #expect(
                Self.offsets(samples.filter { predicate.evaluate(with: $0) }) == expected,
                "in memory: \(key) \(operatorType) \(value)")
        }
        let array = HKQuery.predicateForObjects(withMetadataKey: "grade", operatorType: .equalTo, value: [1, 2])
        await expectHKError(.errorInvalidArgument) { _ = try await fetch(store, type, array) }
    }

    /// The key-path constants compile as Apple declares them (String constants) and name the key paths Apple's
    /// predicates print; they are for source compatibility (no NSPredicate(format:) here).
    @Test func predicateKeyPathsAreStrings() {
        let keyPaths: [String] = [
            HKPredicateKeyPathUUID, HKPredicateKeyPathSource, HKPredicateKeyPathMetadata, HKPredicateKeyPathDevice,
            HKPredicateKeyPathStartDate, HKPredicateKeyPathEndDate, HKPredicateKeyPathQuantity, HKPredicateKeyPathCount,
            HKPredicateKeyPathWorkoutDuration, HKPredicateKeyPathWorkoutType,
            HKPredicateKeyPathWorkoutEffortRelationship,
        ]
        #expect(Set(keyPaths).count == 11)
        #expect(HKPredicateKeyPathStartDate == "startDate" && HKPredicateKeyPathQuantity == "quantity")
    }
}
