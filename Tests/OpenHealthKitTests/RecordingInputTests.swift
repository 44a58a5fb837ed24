import FitnessSensors
import Foundation
import Testing

@testable import OpenHealthKit

/// The recording core's journaled inputs as a state machine: a state, an input, the expected actions and state.
/// The core is given a journal's writer (never called by the core) so that entries are recorded; each test reads the
/// entries back from the batches the core hands over. Dates are seconds since the reference date.
@Suite(.timeLimit(.minutes(1))) struct RecordingInputTests {
    func date(_ seconds: Double) -> Date { Date(storeValue: seconds) }

    /// A running core that has begun collecting at 0 s, journaling into `writer`.
    func core(_ writer: LiveJournal, begin: Bool = true) throws -> RecordingCore {
        var core = RecordingCore(activity: .cycling, deliverySpacing: .zero, source: testSource)
        core.openJournal(writer)
        if begin { _ = try core.apply(.began(at: date(0)), now: .zero) }
        return core
    }

    func writer() async throws -> LiveJournal {
        let (store, _) = try await liveStore()
        return LiveJournal(database: try store.database(), builderID: 1)
    }

    /// The entries of the batches, in order.
    func entries(_ actions: RecordingCore.Actions) throws -> [JournalEntry] {
        try actions.writes.compactMap { batch in
            try batch.entry.map { try JSONDecoder().decode(JournalEntry.self, from: Data($0.payload)) }
        }
    }

    @Test func beginningIsJournaledOnceAndOnlyOnce() async throws {
        var core = try core(try await writer(), begin: false)
        let actions = try core.apply(.began(at: date(5)), now: .zero)
        #expect(try entries(actions) == [.builderPhase(phase: 1, start: 5, end: nil)])
        #expect(core.collecting && core.lifecycle.startDate == date(5))
        #expect(throws: HKError.self) { try core.apply(.began(at: date(6)), now: .zero) }
        #expect(core.lifecycle.startDate == date(5))
    }

    @Test func eventsAreJournaledInTheirOrderKeptSortedAndCalledBackOnce() async throws {
        var core = try core(try await writer())
        let resume = HKWorkoutEvent(
            type: .resume, dateInterval: DateInterval(start: date(20), duration: 0), metadata: nil)
        let pause = HKWorkoutEvent(
            type: .pause, dateInterval: DateInterval(start: date(10), duration: 0), metadata: nil)
        let actions = try core.apply(.events([resume, pause], checkedAt: date(20)), now: .zero)
        #expect(
            try entries(actions) == [
                .event(type: HKWorkoutEventType.resume.rawValue, start: 20, end: 20, metadata: nil),
                .event(type: HKWorkoutEventType.pause.rawValue, start: 10, end: 10, metadata: nil),
            ])
        #expect(actions.calls == [.collectedEvents])
        #expect(core.events.map(\.type) == [.pause, .resume])
        // Running from 0 to 30 s less the pause from 10 to 20 s: 20 s.
        #expect(core.elapsedTime(at: date(30)) == 20)
    }

    @Test func anOverlappingActivityIsRefusedAndChangesNothing() async throws {
        var core = try core(try await writer())
        let first = RecordingCore.Activity(uuid: UUID(), configuration: configuration(.cycling), start: date(0))
        let began = try core.apply(.activityBegan(first), now: .zero)
        #expect(began.calls == [.began(first.uuid)])
        let second = RecordingCore.Activity(uuid: UUID(), configuration: configuration(.running), start: date(5))
        #expect(throws: HKError.self) { try core.apply(.activityBegan(second), now: .zero) }
        let ended = try core.apply(.activityEnded(uuid: first.uuid, at: date(10)), now: .zero)
        #expect(try entries(ended) == [.activityEnded(uuid: first.uuid, end: 10)])
        #expect(ended.calls == [.ended(first.uuid)])
        // Begun at 5 s it still overlaps the first (0–10 s); at 10 s it follows it.
        #expect(throws: HKError.self) { try core.apply(.activityBegan(second), now: .zero) }
        var later = second
        later.start = date(10)
        _ = try core.apply(.activityBegan(later), now: .zero)
        #expect(core.activities.map(\.uuid) == [first.uuid, second.uuid])
    }

    @Test func endingCollectionEndsTheActivityInProgress() async throws {
        var core = try core(try await writer())
        let leg = RecordingCore.Activity(uuid: UUID(), configuration: configuration(.cycling), start: date(0))
        _ = try core.apply(.activityBegan(leg), now: .zero)
        let actions = try core.apply(.ended(at: date(50)), now: .zero)
        #expect(try entries(actions) == [.builderPhase(phase: 2, start: 0, end: 50)])
        #expect(core.activities.first?.end == date(50), "ended with the workout, without an entry of its own")
        #expect(throws: HKError.self) { try core.apply(.ended(at: date(60)), now: .zero) }
    }

    @Test func samplesAndZonesWaitForCollectionToBegin() async throws {
        var core = try core(try await writer(), begin: false)
        let sample = CollectedSample(uuid: UUID(), type: HKQuantityType(.heartRate), start: 1, end: 2, value: 130)
        #expect(throws: HKError.self) { try core.apply(.samples([sample]), now: .zero) }
        let zones = try HKWorkoutZoneConfiguration(
            quantityType: HKQuantityType(.heartRate),
            zoneBoundaries: [100, 120, 140].map { HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: $0) })
        #expect(throws: HKError.self) { try core.apply(.zoneConfiguration(zones), now: .zero) }
        _ = try core.apply(.began(at: date(0)), now: .zero)
        let fixed = try core.apply(.zoneConfiguration(zones), now: .zero)
        #expect(try entries(fixed) == [zones.journalEntry])
        #expect(core.zoneConfigurations(for: HKQuantityType(.heartRate)).inEffect == zones)
        _ = try core.apply(.samples([sample]), now: .zero)
        #expect(
            core.statistics(for: HKQuantityType(.heartRate), now: date(2))?.averageQuantity()?
                .doubleValue(for: HKUnit(from: "count/min")) == 130)
        // 130 bpm is in the zone from 120 to 140 (index 2), for the sample's second.
        #expect(core.zoneGroup(for: HKQuantityType(.heartRate), at: date(2))?.durations == [0, 0, 1, 0])
    }

    @Test func theSessionsChangesAreRecordedAndGateReadings() async throws {
        var core = try core(try await writer())
        _ = core.addChannel(identifier: "strap", deviceCode: 0)
        let running = try core.apply(.sessionState(from: .notStarted, to: .running, date: date(1)), now: .zero)
        #expect(try entries(running) == [.sessionState(from: 1, to: 2, date: 1)])
        _ = try core.apply(.sessionState(from: .running, to: .paused, date: date(5)), now: .zero)
        let dropped = try core.apply(
            .reading(.heartRate(HeartRateReading(bpm: 120, contact: .detected)), channel: 0, time: 6),
            now: .zero)
        #expect(dropped.delivery == nil && core.journal.pending.isEmpty)
        _ = try core.apply(.sessionState(from: .paused, to: .ended, date: date(9)), now: .zero)
        #expect(core.session == SessionStateMachine(state: .ended, startDate: date(1), endDate: date(9)))
    }

    @Test func metadataMergesAndAssociatedSamplesAreKept() async throws {
        var core = try core(try await writer())
        let first = try core.apply(.metadata(["a": "1", "b": "2"]), now: .zero)
        #expect(try entries(first).count == 1)
        _ = try core.apply(.metadata(["b": "3"]), now: .zero)
        #expect(core.metadata["a"] as? String == "1" && core.metadata["b"] as? String == "3")
        let uuid = UUID()
        #expect(try entries(core.apply(.associated(uuid), now: .zero)) == [.associated(uuid: uuid)])
        #expect(core.associated == [uuid])
    }

    /// A core folding a journal records nothing; once its journal opens it goes on after the journal's last row.
    @Test func aReplayingCoreRecordsNothingUntilItsJournalOpens() async throws {
        var core = RecordingCore.replaying(activity: .cycling, deliverySpacing: .zero, source: testSource)
        var actions = try core.apply(.began(at: date(0)), now: .zero)
        let sample = CollectedSample(uuid: UUID(), type: HKQuantityType(.heartRate), start: 1, end: 2, value: 130)
        actions.writes += try core.apply(.samples([sample]), now: .zero).writes
        #expect(actions.writes.isEmpty && core.journal.pending.isEmpty)
        #expect(core.statistics(for: HKQuantityType(.heartRate), now: date(2)) != nil)
        core.openJournal(try await writer(), after: 7)
        let metadata = try core.apply(.metadata(["a": "1"]), now: .zero)
        #expect(metadata.writes.first?.entry?.sequence == 8)
    }
}

extension RecordingCore.Activity {
    init(uuid: UUID, configuration: HKWorkoutConfiguration, start: Date) {
        self.init(uuid: uuid, configuration: configuration, start: start, end: nil, metadata: nil)
    }
}
