import FitnessSensors
import Foundation
import GRDB
import Testing

@testable import OpenHealthKit

/// Sample UUID streams and the deletion records of condensed ranges (`DeletedUUIDsCodec`): a live recording's
/// samples are listed in a few bytes, random UUIDs in 16 each, and every original is still reported.
@Suite(.timeLimit(.minutes(1))) struct DeletedUUIDsTests {
    @Test func aStreamCountsUpUnderOneRandomPrefixAsVersion8() {
        var stream = SampleUUIDStream()
        let uuids = (0 ..< 3).map { _ in stream.next() }
        let halves = uuids.map(SampleUUIDStream.halves)
        #expect(Set(halves.map(\.high)).count == 1)
        #expect(halves.map { $0.low & 0x3FFF_FFFF_FFFF_FFFF } == [1, 2, 3])
        // Byte 6's high nibble is the version (8); byte 8's top two bits the RFC variant (10).
        #expect(uuids.allSatisfy { $0.uuid.6 >> 4 == 8 && $0.uuid.8 >> 6 == 2 })
        // Another stream has another prefix (equal with probability 2^-60).
        var other = SampleUUIDStream()
        #expect(SampleUUIDStream.halves(other.next()).high != halves[0].high)
    }

    @Test func aStreamsUUIDsTakeAFewBytesAndComeBackInOrder() throws {
        var first = SampleUUIDStream(), second = SampleUUIDStream()
        // One sensor's power samples: every fifth of its stream (it also made cadence, speed, distance, energy),
        // with a gap where a rounding made no sample; then another sensor's.
        var uuids: [UUID] = []
        for index in 1 ... 2000 {
            let uuid = first.next()
            if index % 5 == 0 && index != 500 { uuids.append(uuid) }
        }
        for _ in 0 ..< 300 { uuids.append(second.next()) }
        let (format, blob) = DeletedUUIDsCodec.encode(uuids)
        #expect(format == DeletedUUIDsCodec.grouped)
        // Two groups: 1 byte of group count, 2 × (8 + 8 + 2 or 3 bytes of header) and two run-length columns of a
        // few runs each, against 699 × 16 = 11,184 bytes raw.
        #expect(blob.count < 80, "\(blob.count) bytes")
        #expect(try DeletedUUIDsCodec.decode(blob, format: format, count: uuids.count) == uuids)
    }

    @Test func randomUUIDsStayAsTheir16Bytes() throws {
        let uuids = (0 ..< 50).map { _ in UUID() }
        let (format, blob) = DeletedUUIDsCodec.encode(uuids)
        #expect(format == DeletedUUIDsCodec.raw && blob.count == 800)
        #expect(try DeletedUUIDsCodec.decode(blob, format: format, count: 50) == uuids)
    }

    @Test func aDamagedRecordIsOneClearError() throws {
        var stream = SampleUUIDStream()
        let uuids = (0 ..< 100).map { _ in stream.next() }
        let (format, blob) = DeletedUUIDsCodec.encode(uuids)
        for (damaged, count, format) in [
            (blob.dropLast(1), 100, format), (blob, 99, format), (blob, 101, format),
            (blob + Data([0]), 100, format), (Data(), 100, format),
            (Data(repeating: 0, count: 15), 1, DeletedUUIDsCodec.raw), (blob, 100, 7),
        ] {
            #expect {
                _ = try DeletedUUIDsCodec.decode(Data(damaged), format: format, count: count)
            } throws: { error in
                (error as? HKError)?.localizedDescription.hasPrefix("The health store is damaged: a deletion record")
                    == true
            }
        }
    }

    /// A live recording from a power meter, condensed: its deletion records are grouped, a fraction of the 16 bytes
    /// per original that random UUIDs take, and an anchored query from before the condensing reports every original.
    @Test func aCondensedLiveRideReportsEveryOriginalFromASmallRecord() async throws {
        let (store, clock) = try await liveStore()
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration(.cycling))
        let builder = session.associatedWorkoutBuilder()
        let dataSource = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration(.cycling))
        let meter = ScriptedSensor(identifier: "test:meter", name: "Meter", capabilities: .powerMeter)
        dataSource.attach(meter)
        builder.dataSource = dataSource
        session.startActivity(with: t0)
        try await builder.beginCollection(at: t0)
        for second in 1 ... 300 {
            clock.set(Double(second))
            meter.send(.power(PowerReading(watts: 200 + second % 9)), at: t0 + Double(second))
        }
        session.end()
        try await builder.endCollection(at: t0 + 301)
        let workout = try #require(try await builder.finishWorkout())

        let power = HKQuantityType(.cyclingPower), energy = HKQuantityType(.activeEnergyBurned)
        let descriptors = [
            HKQueryDescriptor(sampleType: power, predicate: nil), HKQueryDescriptor(sampleType: energy, predicate: nil),
        ]
        let before = try await store.fetchChanges(descriptors, after: 0, limit: 0)
        // 300 power readings, and energy for each second after the first (299 samples).
        #expect(before.samples.count == 599)
        _ = try await store.condenseWorkout(workout)

        let records = try store.database().read { db in
            try Row.fetchAll(db, sql: "SELECT format, count, length(uuids) FROM deleted_ranges ORDER BY anchor")
        }
        let formats: [Int] = records.map { $0[0] }
        let counts: [Int] = records.map { $0[1] }
        let lengths: [Int] = records.map { $0[2] }
        #expect(formats == [1, 1], "grouped")
        #expect(counts.reduce(0, +) == 599)
        let bytes = lengths.reduce(0, +)
        #expect(bytes < 100, "\(bytes) bytes for 599 UUIDs (9,584 bytes at 16 each)")

        let after = try await store.fetchChanges(descriptors, after: before.anchor, limit: 0)
        #expect(Set(after.deleted.map(\.uuid)) == Set(before.samples.map(\.uuid)))
        #expect(after.deleted.count == 599)
    }
}
