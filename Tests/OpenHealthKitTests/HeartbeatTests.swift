import FitnessSensors
import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

@Suite(.postgresCluster, .timeLimit(.minutes(1))) struct HeartbeatTests {
    @Test func codecRoundTripsBeatsAndGaps() throws {
        let beats = [
            HeartbeatSeriesCodec.Beat(offset: 0, precededByGap: false), .init(offset: 0.812, precededByGap: false),
            .init(offset: 1.6, precededByGap: false), .init(offset: 9.25, precededByGap: true),
        ]
        let bytes = HeartbeatSeriesCodec.encode(beats)
        #expect(try HeartbeatSeriesCodec.decode(bytes) == beats)
        #expect(bytes.count <= 4 + 4 * 4)
        #expect(throws: HKError.self) { _ = try HeartbeatSeriesCodec.decode(Array(bytes.dropLast())) }
    }

    @Test func collectorRebuildsBeatTimesAndMarksGaps() {
        var collector = HeartbeatCollector()
        let first = collector.add([0.5, 0.5], arrivedAt: 100, sensor: "s")
        #expect(first.map(\.time) == [99.5, 100])
        let next = collector.add([0.6], arrivedAt: 100.7, sensor: "s")
        #expect(next.map(\.time) == [100.6] && next.map(\.precededByGap) == [false])
        collector.gap(sensor: "s")
        let after = collector.add([0.5], arrivedAt: 140, sensor: "s")
        #expect(after.map(\.time) == [140] && after.map(\.precededByGap) == [true])
        #expect(collector.add([0.05, 7], arrivedAt: 141, sensor: "s").isEmpty)  // implausible intervals are dropped
    }

    @Test func builderSavesASeriesTheQueryReadsBack() async throws {
        let store = try await authorizedStore()
        try await store.requestAuthorization(toShare: [HKSeriesType.heartbeat()], read: [HKSeriesType.heartbeat()])
        let builder = HKHeartbeatSeriesBuilder(healthStore: store, device: nil, start: t0)
        try await builder.addHeartbeat(at: 0, precededByGap: false)
        try await builder.addHeartbeat(at: 0.8, precededByGap: false)
        try await builder.addHeartbeat(at: 5.5, precededByGap: true)
        await expectHKError(.errorInvalidArgument) { try await builder.addHeartbeat(at: 1, precededByGap: false) }
        let series = try await builder.finishSeries()
        #expect(series.count == 3 && series.endDate == t0 + 5.5)
        await expectHKError(.errorInvalidArgument) { try await builder.addHeartbeat(at: 6, precededByGap: false) }
        let stored = try #require(
            try await fetch(store, HKSeriesType.heartbeat(), nil).first as? HKHeartbeatSeriesSample)
        #expect(stored.count == 3 && stored.uuid == series.uuid)
        final class Beats: @unchecked Sendable { var list: [(TimeInterval, Bool)] = [] }
        let collected = Beats()
        let beats: [(TimeInterval, Bool)] = try await withCheckedThrowingContinuation { continuation in
            store.execute(
                HKHeartbeatSeriesQuery(heartbeatSeries: stored) { _, time, gap, done, error in
                    if let error {
                        continuation.resume(throwing: error)
                        return
                    }
                    collected.list.append((time, gap))
                    if done { continuation.resume(returning: collected.list) }
                })
        }
        #expect(beats.map(\.0) == [0, 0.8, 5.5])
        #expect(beats.map(\.1) == [false, false, true])
    }

    /// A running session with a strap whose RR intervals are collected, on a store that may save heartbeat series.
    func strapRun(
        databasePath: String? = nil
    ) async throws -> (
        HKHealthStore, ManualWallClock, HKWorkoutSession, HKLiveWorkoutBuilder, ScriptedSensor
    ) {
        let (store, clock) = try await liveStore(databasePath: databasePath)
        try await store.requestAuthorization(toShare: [HKSeriesType.heartbeat()], read: [HKSeriesType.heartbeat()])
        let workoutConfiguration = configuration(.running)
        let session = try HKWorkoutSession(healthStore: store, configuration: workoutConfiguration)
        let builder = session.associatedWorkoutBuilder()
        let source = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: workoutConfiguration)
        let strap = ScriptedSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap)
        source.attach(strap)
        builder.dataSource = source
        session.startActivity(with: t0)
        try await builder.beginCollection(at: t0)
        return (store, clock, session, builder, strap)
    }

    /// More beats than one series holds: the journal's batches are read one at a time and split into series of
    /// `maximumCount`, in order, none lost.
    @Test func longWorkoutsSplitHeartbeatsIntoFullSeries() async throws {
        let (store, clock, session, builder, strap) = try await strapRun()
        // 26,000 notifications of four 0.5 s intervals: 104,000 beats over 52,000 s.
        for second in stride(from: 2, through: 52_000, by: 2) {
            clock.set(Double(second))
            strap.send(
                .heartRate(HeartRateReading(bpm: 120, rrIntervals: [0.5, 0.5, 0.5, 0.5], contact: .detected)),
                at: t0 + Double(second))
        }
        session.end()
        try await builder.endCollection(at: t0 + 52_001)
        let workout = try #require(try await builder.finishWorkout())
        let series = try await fetch(store, HKSeriesType.heartbeat(), HKQuery.predicateForObjects(from: workout))
            .compactMap { $0 as? HKHeartbeatSeriesSample }.sorted { $0.startDate < $1.startDate }
        #expect(
            series.map(\.count) == [
                HKHeartbeatSeriesBuilder.maximumCount, 104_000 - HKHeartbeatSeriesBuilder.maximumCount,
            ])
        #expect(series.first?.startDate == t0 + 0.5)
        #expect(series.last?.endDate == t0 + 52_000)
        #expect(series[1].startDate.timeIntervalSince(series[0].endDate) == 0.5)
    }

    @Test(arguments: StoreKind.available) func liveWorkoutKeepsRRIntervalsAsAHeartbeatSeries(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let (store, clock, session, builder, strap) = try await strapRun(
            databasePath: try await kind.freshStoreName(directory))
        for second in 1 ... 20 {
            clock.set(Double(second))
            strap.send(
                .heartRate(HeartRateReading(bpm: 60, rrIntervals: [1.0], contact: .detected)), at: t0 + Double(second))
        }
        session.end()
        try await builder.endCollection(at: t0 + 21)
        let workout = try #require(try await builder.finishWorkout())
        let series = try await fetch(store, HKSeriesType.heartbeat(), HKQuery.predicateForObjects(from: workout))
        let sample = try #require(series.first as? HKHeartbeatSeriesSample)
        #expect(series.count == 1 && sample.count == 20)
        var times: [TimeInterval] = []
        for try await beat in HKHeartbeatSeriesQueryDescriptor(sample).results(for: store) {
            times.append(beat.timeIntervalSinceStart)
        }
        #expect(times == (0 ..< 20).map(Double.init))
        #expect(sample.startDate == t0 + 1)
    }
}

/// Version 2 of the heartbeat form: the same microseconds as version 1, as 1/1024 s ticks plus residuals.
@Suite struct HeartbeatCodecVersion2Tests {
    /// Beats of a strap: RR intervals of whole 1/1024 s, 780…820 ticks (about 0.76–0.80 s), offsets summed as
    /// `Double` seconds as the collector makes them.
    func strapBeats(_ count: Int) -> [HeartbeatSeriesCodec.Beat] {
        var offset = 0.0
        return (0 ..< count).map { index in
            let ticks: Int = 780 + (index * index * 7 + index * 13) % 41
            defer { offset += Double(ticks) / 1024 }
            return HeartbeatSeriesCodec.Beat(offset: offset, precededByGap: index == 500)
        }
    }

    @Test func versionTwoDecodesToWhatVersionOneDecodesTo() throws {
        let beats = strapBeats(3000)
        let version1 = HeartbeatSeriesCodec.encodeVersion1(beats)
        let version2 = HeartbeatSeriesCodec.encodeVersion2(beats)
        #expect(Array(version2.prefix(5)) == [0xFF, 0xFF, 0xFF, 0xFF, 2])
        #expect(try HeartbeatSeriesCodec.decode(version2) == HeartbeatSeriesCodec.decode(version1))
        // Version 1: each interval of about 780,000 µs << 1 needs 21 bits, a 3-byte varint; the first beat, at
        // offset 0, one byte: 4 + 1 + 3 × 2999.
        #expect(version1.count == 4 + 1 + 3 * 2999)
        // Version 2: tick deltas within ±40 (zigzag ≤ 80) pack in seven bits at most, 3000 × 7 / 8 = 2,625 bytes;
        // the residuals (−1…1 µs, zigzag ≤ 2) in two bits at most, 750; the one gap run-length encodes in a few bytes.
        #expect(version2.count < 2625 + 750 + 100, "\(version2.count) bytes")
        #expect(HeartbeatSeriesCodec.encode(beats) == version2)
        // Offsets keep their microseconds: the 3000th beat is at the sum of the first 2999 intervals.
        let decoded = try HeartbeatSeriesCodec.decode(version2)
        #expect(decoded[2999].offset == (beats[2999].offset * 1_000_000).rounded() / 1_000_000)
        #expect(decoded.map(\.precededByGap) == beats.map(\.precededByGap))
    }

    @Test func aFewBeatsKeepTheShorterVersionOne() throws {
        let beats = strapBeats(3)
        #expect(HeartbeatSeriesCodec.encode(beats) == HeartbeatSeriesCodec.encodeVersion1(beats))
    }

    @Test func damagedVersionTwoIsAnErrorNeverACrash() throws {
        let bytes = HeartbeatSeriesCodec.encodeVersion2(strapBeats(400))
        for length in 4 ..< bytes.count where length % 5 == 0 {
            #expect(throws: HKError.self) { _ = try HeartbeatSeriesCodec.decode(Array(bytes.prefix(length))) }
        }
        var wrongVersion = bytes
        wrongVersion[4] = 9
        #expect(throws: HKError.self) { _ = try HeartbeatSeriesCodec.decode(wrongVersion) }
        // Layout: marker and version (5 bytes), count 400 (2 bytes), rate 1024 (2 bytes), columns.
        var hugeCount = Data(bytes.prefix(5))
        QuantitySeriesCodec.writeVarint(UInt64(1) << 40, to: &hugeCount)
        #expect(throws: HKError.self) { _ = try HeartbeatSeriesCodec.decode([UInt8](hugeCount) + bytes.dropFirst(7)) }
        var zeroRate = bytes
        zeroRate[7] = 0
        zeroRate[8] = 0
        #expect(throws: HKError.self) { _ = try HeartbeatSeriesCodec.decode(zeroRate) }
    }
}
