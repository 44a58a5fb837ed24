import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// Every element of a query's results.
func collect(
    _ results: HKQuantitySeriesSampleQueryDescriptor.Results
) async throws -> [HKQuantitySeriesSampleQueryDescriptor.Result] {
    var all: [HKQuantitySeriesSampleQueryDescriptor.Result] = []
    for try await result in results { all.append(result) }
    return all
}

/// Quantity series: the codec, the builder, the series query, condensing, and HealthKit's errors on bad input.
@Suite(.timeLimit(.minutes(1))) struct SeriesTests {
    let bpm = HKUnit(from: "count/min")
    let heart = HKQuantityType(.heartRate)

    func rowCount(_ store: HKHealthStore, _ table: String) throws -> Int {
        try store.database().read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0 }
    }

    @Test func theCodecIsLosslessAndCompact() throws {
        let base = t0.storeValue
        let heartRates = (0 ..< 3600).map { (index: Int) -> SeriesQuantity in
            let time: Double = base + Double(index)
            return SeriesQuantity(start: time, end: time, value: Double(120 + (index / 7) % 9))
        }
        let encoded = QuantitySeriesCodec.encode(heartRates)
        #expect(try QuantitySeriesCodec.decode(encoded) == heartRates)
        #expect(encoded.count < heartRates.count)  // under a byte per quantity
        let awkward = [
            SeriesQuantity(start: base + 0.1 + 1e-7, end: base + 3.3, value: 0.1 + 0.2),
            SeriesQuantity(start: base + 4, end: base + 4, value: -1e300),
            SeriesQuantity(start: base + 5.123456789, end: base + 9, value: .pi),
        ]
        #expect(try QuantitySeriesCodec.decode(QuantitySeriesCodec.encode(awkward)) == awkward)
        #expect(try QuantitySeriesCodec.decode(QuantitySeriesCodec.encode([])) == [])
        // Damaged data is an error, never a crash.
        for length in 0 ..< encoded.count where length % 97 == 0 {
            #expect(throws: HKError.self) { try QuantitySeriesCodec.decode(encoded.prefix(length)) }
        }
    }

    @Test(arguments: StoreKind.available) func aBuilderSavesOneSeriesSampleThatReadsBackWithItsCount(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        let builder = HKQuantitySeriesSampleBuilder(healthStore: store, quantityType: heart, startDate: t0, device: nil)
        try builder.insert(HKQuantity(unit: bpm, doubleValue: 100), at: t0 + 2)
        try builder.insert(HKQuantity(unit: bpm, doubleValue: 999), at: t0)
        try builder.insert(
            HKQuantity(unit: HKUnit(from: "count/s"), doubleValue: 2), for: DateInterval(start: t0, duration: 2))
        let samples = try await builder.finishSeries(metadata: ["note": "strap"], endDate: t0 + 4)
        #expect(samples.count == 1)
        let sample = try #require(samples.first as? HKDiscreteQuantitySample)
        #expect(sample.count == 2)
        #expect(sample.startDate == t0 && sample.endDate == t0 + 4)
        #expect(abs(sample.averageQuantity.doubleValue(for: bpm) - 110) < 1e-9)  // 120 for 2 s, 100 held 2 s
        #expect(sample.maximumQuantity.doubleValue(for: bpm) == 120)
        #expect(sample.mostRecentQuantity.doubleValue(for: bpm) == 100)
        let fetched = try await fetch(store, heart, nil)
        #expect((fetched.first as? HKQuantitySample)?.count == 2)
        // The series query gives each quantity, then done.
        let results = try await collect(
            HKQuantitySeriesSampleQueryDescriptor(
                predicate: .quantitySample(type: heart), options: .includeSample
            ).results(for: store))
        #expect(results.map { $0.quantity.doubleValue(for: bpm) } == [120, 100])
        #expect(
            results.map { $0.dateInterval } == [
                DateInterval(start: t0, duration: 2), DateInterval(start: t0 + 2, duration: 0),
            ])
        #expect(results.allSatisfy { $0.sample?.uuid == sample.uuid })
    }

    @Test(arguments: StoreKind.available) func theSeriesQueryCallsItsHandlerPerQuantityThenDone(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        try await store.save([heartRate(90, at: 5), heartRate(80, at: 1)])
        let calls: [(Double?, Bool)] = try await withCheckedThrowingContinuation { continuation in
            let collected = UncheckedBox(NSMutableArray())
            let query = HKQuantitySeriesSampleQuery(quantityType: heart, predicate: nil) {
                _, quantity, _, sample, done, error in
                collected.value.add((quantity?.doubleValue(for: self.bpm), done, sample == nil))
                if let error { continuation.resume(throwing: error) }
                if done {
                    continuation.resume(
                        returning: collected.value.map { ($0 as! (Double?, Bool, Bool)) }.map { ($0.0, $0.1) })
                }
            }
            store.execute(query)
        }
        #expect(calls.map(\.0) == [80, 90])
        #expect(calls.map(\.1) == [false, true])
    }

    @Test func badInputIsHealthKitsErrorAndChangesNothing() async throws {
        let store = try await authorizedStore()
        let builder = HKQuantitySeriesSampleBuilder(healthStore: store, quantityType: heart, startDate: t0, device: nil)
        await expectHKError(.errorInvalidArgument) {
            try builder.insert(HKQuantity(unit: .meter(), doubleValue: 1), at: t0)
        }
        await expectHKError(.errorInvalidArgument) {
            try builder.insert(HKQuantity(unit: bpm, doubleValue: 90), at: t0 - 1)
        }
        await expectHKError(.errorInvalidArgument) {
            try builder.insert(HKQuantity(unit: bpm, doubleValue: .nan), at: t0 + 1)
        }
        try builder.insert(HKQuantity(unit: bpm, doubleValue: 90), at: t0 + 5)
        await expectHKError(.errorInvalidArgument) {
            _ = try await builder.finishSeries(metadata: nil, endDate: t0 + 1)
        }
        #expect(try rowCount(store, "samples") == 0)
        _ = try await builder.finishSeries(metadata: nil, endDate: nil)
        await expectHKError(.errorInvalidArgument) {
            try builder.insert(HKQuantity(unit: bpm, doubleValue: 90), at: t0 + 6)
        }
        await expectHKError(.errorInvalidArgument) { _ = try await builder.finishSeries(metadata: nil) }
        #expect(try rowCount(store, "quantity_series") == 1)
        let discarded = HKQuantitySeriesSampleBuilder(
            healthStore: store, quantityType: heart, startDate: t0, device: nil)
        try discarded.insert(HKQuantity(unit: bpm, doubleValue: 90), at: t0)
        discarded.discard()
        await expectHKError(.errorInvalidArgument) { _ = try await discarded.finishSeries(metadata: nil) }
        #expect(try rowCount(store, "samples") == 1)
        // A sample unknown to the store: no data.
        let unknown = HKQuery.predicateForObject(with: UUID())
        await expectHKError(.errorNoData) {
            for try await _ in HKQuantitySeriesSampleQueryDescriptor(
                predicate: .quantitySample(type: heart, predicate: unknown),
                options: []
            ).results(for: store) {}
        }
        // Condensing a workout that is not in the store.
        let ghost = legacy.workout(
            activityType: .running, start: t0, end: t0 + 60, workoutEvents: nil, totalEnergyBurned: nil,
            totalDistance: nil, metadata: nil)
        await expectHKError(.errorInvalidArgument) { _ = try await store.condenseWorkout(ghost) }
        #expect(try rowCount(store, "samples") == 1)
    }

    @Test func condensingKeepsAssociationsAndReportsDeletions() async throws {
        let store = try await authorizedStore()
        let workout = legacy.workout(
            activityType: .running, start: t0, end: t0 + 600, workoutEvents: nil, totalEnergyBurned: nil,
            totalDistance: nil, metadata: nil)
        try await store.save(workout)
        let readings = (0 ..< 300).map { (index: Int) -> HKQuantitySample in
            heartRate(Double(120 + (index / 4) % 3), at: Double(index), length: 0)
        }
        let tagged = HKQuantitySample(
            type: heart, quantity: HKQuantity(unit: bpm, doubleValue: 150), start: t0 + 400,
            end: t0 + 400, metadata: ["kept": "yes"])
        try await store.associate(readings + [tagged], with: workout)
        let anchored = try await store.fetchChanges(
            [HKQueryDescriptor(sampleType: heart, predicate: nil)], after: 0, limit: 0)
        let report = try await store.condenseWorkout(workout)
        #expect(report == CondenseReport(workouts: 1, samplesRemoved: 300, seriesCreated: 1, quantitiesStored: 75))
        let associated = try await fetch(store, heart, HKQuery.predicateForObjects(from: workout))
        #expect(associated.count == 2)
        let series = try #require(associated.compactMap { $0 as? HKDiscreteQuantitySample }.first { $0.count > 1 })
        #expect(series.count == 75)
        #expect(associated.contains { $0.uuid == tagged.uuid })
        let changes = try await store.fetchChanges(
            [HKQueryDescriptor(sampleType: heart, predicate: nil)],
            after: anchored.anchor, limit: 0)
        #expect(changes.deleted.count == 300)
        #expect(changes.samples.map(\.uuid) == [series.uuid])
        let quantities = try await collect(
            HKQuantitySeriesSampleQueryDescriptor(
                predicate: .quantitySample(type: heart, predicate: HKQuery.predicateForObject(with: series.uuid)),
                options: []
            ).results(for: store))
        #expect(quantities.count == 75)
        #expect(quantities.first?.dateInterval == DateInterval(start: t0, duration: 4))
    }
}

/// Version 2 of the series form: exact for times and values that are not exact decimals.
@Suite struct SeriesCodecVersion2Tests {
    @Test func arrivalTimesAndComputedValuesRoundTripExactlyAndCompactly() throws {
        var generator = SeededGenerator(seed: 0x5EED_0001)
        let base = 816_850_800.146
        // Millisecond arrival times about 0.5 s apart, as a BLE sensor's notifications arrive; whole watts.
        var time = base
        let power = (0 ..< 2000).map { _ -> SeriesQuantity in
            time += Double(Int.random(in: 480 ... 520, using: &generator)) / 1000
            return SeriesQuantity(start: time, end: time, value: Double(Int.random(in: 140 ... 170, using: &generator)))
        }
        let encoded = QuantitySeriesCodec.encode(power)
        #expect(try QuantitySeriesCodec.decode(encoded).map(\.start.bitPattern) == power.map(\.start.bitPattern))
        #expect(try QuantitySeriesCodec.decode(encoded) == power)
        // Version 1 had to store these times as raw doubles: 16 bytes per quantity for start and end.
        #expect(QuantitySeriesCodec.encodeVersion1(power).count > 16 * power.count)
        #expect(encoded.count < 4 * power.count)
        // Values that are no decimal (cadence from crank times: 60 · 1024 / ticks) and float32 energies stay exact.
        let cadence = power.enumerated().map {
            SeriesQuantity(start: $1.start, end: $1.end, value: 61_440 / Double(700 + $0 % 90))
        }
        #expect(try QuantitySeriesCodec.decode(QuantitySeriesCodec.encode(cadence)) == cadence)
        let energy = power.map {
            SeriesQuantity(start: $0.start, end: $0.end + 0.5, value: Double(Float($0.value) / 2048))
        }
        #expect(try QuantitySeriesCodec.decode(QuantitySeriesCodec.encode(energy)) == energy)
        let odd = [
            SeriesQuantity(start: -1e300, end: 1e300, value: -0.0),
            SeriesQuantity(start: 0, end: .pi, value: .leastNonzeroMagnitude),
        ]
        let decoded = try QuantitySeriesCodec.decode(QuantitySeriesCodec.encode(odd))
        #expect(decoded.map(\.value.bitPattern) == odd.map(\.value.bitPattern) && decoded.map(\.end) == odd.map(\.end))
    }

    @Test func versionOneSeriesStillDecode() throws {
        let quantities = (0 ..< 100).map {
            SeriesQuantity(start: 800_000_000 + Double($0), end: 800_000_000 + Double($0), value: 120)
        }
        #expect(try QuantitySeriesCodec.decode(QuantitySeriesCodec.encodeVersion1(quantities)) == quantities)
    }

    @Test func damagedVersionTwoDataIsAnErrorNeverACrash() throws {
        var generator = SeededGenerator(seed: 0x5EED_0002)
        let quantities = (0 ..< 300).map { index in
            SeriesQuantity(
                start: 816_850_800.146 + Double(index) * 0.503, end: 816_850_800.146 + Double(index) * 0.503,
                value: Double.random(in: 0 ... 10, using: &generator))
        }
        let encoded = QuantitySeriesCodec.encode(quantities)
        for length in 0 ..< encoded.count where length % 7 == 0 {
            #expect(throws: HKError.self) { try QuantitySeriesCodec.decode(encoded.prefix(length)) }
        }
    }
}
