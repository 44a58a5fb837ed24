import Foundation
import HealthKitModel
import WorkoutEngine

extension HKHealthStore {
    /// Returns the workout session that was running when this program last stopped without finishing it (a crash,
    /// a kill), with its state, activities and events, and its builder holding every journaled sample; nil when
    /// there is none. Finishing or discarding the recovered builder clears the journal. Set a data source on the
    /// builder again to go on collecting.
    ///
    /// HealthKit: HKHealthStore.recoverActiveWorkoutSession(completion:).
    public func recoverActiveWorkoutSession() async throws -> HKWorkoutSession? {
        let backend = try backend()
        // One read of the backend, the task suspended; the journal is folded here, above the seam.
        guard let journal = try await backend.interruptedRecording(client: clientIdentifier) else { return nil }
        var recording = try RecoveredRecording(
            journal: journal, source: sourceRevision.source, deliverySpacing: clocks.deliverySpacing)
        let session = HKWorkoutSession(
            recovering: self, configuration: recording.configuration,
            machine: recording.core.session)
        recording.core.openJournal(
            LiveJournal(database: backend, builderID: recording.builderID), after: recording.sequence)
        let builder = HKLiveWorkoutBuilder(
            recovering: session, healthStore: self, configuration: recording.configuration,
            device: recording.device, core: recording.core)
        session.attachRecoveredBuilder(builder)
        if let open = recording.core.activities.last(where: { $0.end == nil }) {
            session.restoreCurrentActivity(
                uuid: open.uuid, configuration: open.configuration, start: open.start,
                metadata: open.metadata)
        }
        if recording.core.collecting { builder.startFlushing() }
        if recording.core.session.isActive { sessionWillStart(session, at: wallClock()) }
        return session
    }

    public func recoverActiveWorkoutSession(completion: @escaping @Sendable (HKWorkoutSession?, (any Error)?) -> Void) {
        report({ try await self.recoverActiveWorkoutSession() }) { result in
            switch result {
            case .success(let session): completion(session, nil)
            case .failure(let error): completion(nil, error)
            }
        }
    }
}

/// A journal read back after a crash: its inputs decoded and folded through the recording core, as the live builder
/// applied them (``RecordingCore/apply(_:now:)``), so the recovered builder holds what the live one held.
struct RecoveredRecording: Sendable {
    var builderID: Int64
    /// The sequence number of the journal's last row: the recovered builder's journal goes on after it.
    var sequence: Int64 = 0
    var configuration: HKWorkoutConfiguration
    var device: HKDevice?
    var core: RecordingCore

    init(journal: InterruptedRecording, source: HKSource, deliverySpacing: Duration) throws {
        builderID = journal.builderID
        do {
            configuration = try JSONDecoder().decode(ConfigurationRecord.self, from: Data(journal.configuration.utf8))
                .configuration()
            if let deviceJSON = journal.device {
                let f =
                    try JSONDecoder().decode([String?].self, from: Data(deviceJSON.utf8))
                    + Array(repeating: nil, count: 8)
                device = HKDevice(
                    name: f[0], manufacturer: f[1], model: f[2], hardwareVersion: f[3], firmwareVersion: f[4],
                    softwareVersion: f[5], localIdentifier: f[6], udiDeviceIdentifier: f[7])
            }
        } catch let error as HKError {
            throw error
        } catch {
            throw HKError(.errorDatabaseInaccessible, "The journal of an interrupted workout is damaged: \(error).")
        }
        core = .replaying(activity: configuration.activityType, deliverySpacing: deliverySpacing, source: source)
        var decoder = JournalDecoder(typeIdentifiers: journal.typeIdentifiers)
        for row in journal.rows {
            sequence = row.sequence
            guard let input = try decoder.input(row) else { continue }
            do { _ = try core.apply(input, now: .zero) } catch {
                throw HKError(
                    .errorDatabaseInaccessible,
                    "The journal of an interrupted workout does not replay (row \(row.sequence)): \(error).")
            }
        }
    }
}

/// Turns journal rows back into the inputs they recorded.
struct JournalDecoder {
    /// The identifiers of the store's types by the backend's id, as the sample batches name them.
    let typeIdentifiers: [Int64: String]
    private var types: [Int64: HKQuantityType] = [:]

    init(typeIdentifiers: [Int64: String]) {
        self.typeIdentifiers = typeIdentifiers
    }

    /// The input a row recorded; nil for rows that are not inputs (heartbeats, which stay in the journal until the
    /// workout is finished) and for samples of a type this store does not know.
    mutating func input(_ row: InterruptedRecording.Row) throws -> RecordingInput? {
        switch JournalKind(rawValue: row.kind) {
        case .heartbeats, .none:
            return nil
        case .samples:
            let records: [SampleBatchCodec.Record]
            do { records = try SampleBatchCodec.decode(row.payload) } catch {
                throw HKError(.errorDatabaseInaccessible, "A journaled sample batch is damaged: \(error).")
            }
            var samples: [CollectedSample] = []
            samples.reserveCapacity(records.count)
            for record in records {
                guard let type = try type(record.typeID) else { continue }
                var sample = CollectedSample(
                    uuid: record.uuid, type: type, start: record.start, end: record.end,
                    value: record.value)
                sample.appAdded = record.appAdded
                sample.alreadyStored = record.alreadyStored
                samples.append(sample)
            }
            return .samples(samples)
        case .entry:
            let entry: JournalEntry
            do { entry = try JSONDecoder().decode(JournalEntry.self, from: Data(row.payload)) } catch {
                throw HKError(
                    .errorDatabaseInaccessible, "A journal entry of an interrupted workout is damaged: \(error).")
            }
            return try Self.input(entry)
        }
    }

    private mutating func type(_ id: Int64) throws -> HKQuantityType? {
        if let known = types[id] { return known }
        guard let identifier = typeIdentifiers[id] else {
            throw HKError(
                .errorDatabaseInaccessible, "The health store is damaged: a sample refers to unknown type \(id).")
        }
        guard let resolved = try HKSampleType.stored(identifier: identifier) as? HKQuantityType else { return nil }
        types[id] = resolved
        return resolved
    }

    /// The input an entry recorded; nil for an entry this version does not know how to apply.
    static func input(_ entry: JournalEntry) throws -> RecordingInput? {
        switch entry {
        case let .sessionState(from, to, date):
            guard let from = HKWorkoutSessionState(rawValue: from), let to = HKWorkoutSessionState(rawValue: to) else {
                return nil
            }
            return .sessionState(from: from, to: to, date: Date(storeValue: date))
        case let .builderPhase(phase, start, end):
            switch BuilderLifecycle.Phase(rawValue: phase) {
            case .active: return start.map { .began(at: Date(storeValue: $0)) }
            case .ended: return end.map { .ended(at: Date(storeValue: $0)) }
            default: return nil
            }
        case let .event(type, start, end, metadata):
            guard let type = HKWorkoutEventType(rawValue: type) else { return nil }
            let event = HKWorkoutEvent(
                type: type,
                dateInterval: DateInterval(
                    start: Date(storeValue: start),
                    end: Date(storeValue: max(start, end))),
                metadata: try MetadataCoding.decode(metadata))
            return .events([event], checkedAt: event.dateInterval.start)
        case let .activityBegan(uuid, configuration, start, metadata):
            return .activityBegan(
                RecordingCore.Activity(
                    uuid: uuid, configuration: try configuration.configuration(),
                    start: Date(storeValue: start), end: nil,
                    metadata: try MetadataCoding.decode(metadata)))
        case let .activityEnded(uuid, end):
            return .activityEnded(uuid: uuid, at: Date(storeValue: end))
        case .metadata(let json):
            return .metadata(try MetadataCoding.decode(json) ?? [:])
        case .associated(let uuid):
            return .associated(uuid)
        case let .zoneConfiguration(type, source, boundaries):
            return .zoneConfiguration(
                try HKWorkoutZoneConfiguration(journaled: type, source: source, boundaries: boundaries))
        }
    }
}
