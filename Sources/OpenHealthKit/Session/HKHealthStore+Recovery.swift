import Foundation
import GRDB

extension HKHealthStore {
    /// Returns the workout session that was running when this program last stopped without finishing it (a crash,
    /// a kill), with its state, activities and events, and its builder holding every journaled sample; nil when
    /// there is none. Finishing or discarding the recovered builder clears the journal. Set a data source on the
    /// builder again to go on collecting.
    ///
    /// HealthKit: HKHealthStore.recoverActiveWorkoutSession(completion:).
    public func recoverActiveWorkoutSession() async throws -> HKWorkoutSession? {
        let database = try database()
        let client = clientIdentifier
        let found = try await database.read { db -> UncheckedBox<RecoveredRecording>? in
            guard let journal = try database.latestInterruptedJournal(client: client, db) else { return nil }
            return UncheckedBox(try RecoveredRecording(database: database, builderID: journal.id,
                                                       configurationJSON: journal.configuration,
                                                       deviceJSON: journal.device, db))
        }
        guard let recording = found?.value else { return nil }
        let session = HKWorkoutSession(recovering: self, configuration: recording.configuration, machine: recording.machine)
        let builder = HKLiveWorkoutBuilder(session: session, healthStore: self, configuration: recording.configuration,
                                           device: recording.device)
        builder.restore(recording)
        session.attachRecoveredBuilder(builder)
        if let open = recording.activities.last(where: { $0.end == nil }) {
            session.restoreCurrentActivity(uuid: open.uuid, configuration: open.configuration, start: open.start,
                                           metadata: open.metadata)
        }
        if recording.machine.isActive { sessionWillStart(session, at: wallClock()) }
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

/// A journal replayed: everything needed to rebuild a session and its builder.
struct RecoveredRecording {
    var database: StoreDatabase
    var builderID: Int64
    var sequence: Int64 = 0
    var configuration: HKWorkoutConfiguration
    var device: HKDevice?
    var machine = SessionStateMachine()
    var lifecycle = BuilderLifecycle()
    var events: [HKWorkoutEvent] = []
    var activities: [HKWorkoutBuilder.ActivityRecord] = []
    var metadata: [String: Any] = [:]
    var associated: [UUID] = []
    var statistics = BuilderStatistics()
    var zoneConfigurations: [HKWorkoutZoneConfiguration] = []
    /// Heart-rate and cycling-power samples, for the zones.
    var zoneSamples: [CollectedSample] = []
    var sampleCount = 0

    init(database: StoreDatabase, builderID: Int64, configurationJSON: String, deviceJSON: String?, _ db: Database) throws {
        self.database = database
        self.builderID = builderID
        do {
            configuration = try JSONDecoder().decode(ConfigurationRecord.self, from: Data(configurationJSON.utf8)).configuration()
            if let deviceJSON {
                let f = try JSONDecoder().decode([String?].self, from: Data(deviceJSON.utf8)) + Array(repeating: nil, count: 8)
                device = HKDevice(name: f[0], manufacturer: f[1], model: f[2], hardwareVersion: f[3], firmwareVersion: f[4],
                                  softwareVersion: f[5], localIdentifier: f[6], udiDeviceIdentifier: f[7])
            }
        } catch let error as HKError {
            throw error
        } catch {
            throw HKError(.errorDatabaseInaccessible, "The journal of an interrupted workout is damaged: \(error).")
        }
        var startDate: Date?
        var endDate: Date?
        var state = HKWorkoutSessionState.notStarted
        let rows = try database.journalRows(builderID: builderID, db)
        var types: [Int64: HKQuantityType] = [:]
        while let row = try rows.next() {
            sequence = row.sequence
            let payload = row.payload
            let kind = JournalKind(rawValue: row.kind)
            if kind == .heartbeats { continue }  // heartbeats stay in the journal until the workout is finished
            if kind == .samples {
                let records: [SampleBatchCodec.Record]
                do { records = try SampleBatchCodec.decode(payload) } catch {
                    throw HKError(.errorDatabaseInaccessible, "A journaled sample batch is damaged: \(error).")
                }
                for record in records {
                    let type: HKQuantityType
                    if let known = types[record.typeID] { type = known } else {
                        guard let resolved = try database.sampleType(id: record.typeID, db) as? HKQuantityType else { continue }
                        types[record.typeID] = resolved
                        type = resolved
                    }
                    let sample = CollectedSample(uuid: record.uuid, type: type, start: record.start, end: record.end,
                                                 value: record.value)
                    statistics.add(sample)
                    if HKWorkoutZoneConfiguration.zonedTypes.contains(type) { zoneSamples.append(sample) }
                    sampleCount += 1
                }
                continue
            }
            let entry: JournalEntry
            do { entry = try JSONDecoder().decode(JournalEntry.self, from: Data(payload)) } catch {
                throw HKError(.errorDatabaseInaccessible, "A journal entry of an interrupted workout is damaged: \(error).")
            }
            switch entry {
            case let .sessionState(_, to, date):
                state = HKWorkoutSessionState(rawValue: to) ?? state
                if state == .running && startDate == nil { startDate = Date(storeValue: date) }
                if state == .ended { endDate = Date(storeValue: date) }
            case let .builderPhase(phase, start, end):
                lifecycle = BuilderLifecycle(phase: BuilderLifecycle.Phase(rawValue: phase) ?? .active,
                                             startDate: start.map(Date.init(storeValue:)), endDate: end.map(Date.init(storeValue:)))
            case let .event(type, start, end, metadata):
                guard let type = HKWorkoutEventType(rawValue: type) else { continue }
                events.append(HKWorkoutEvent(type: type, dateInterval: DateInterval(start: Date(storeValue: start),
                                                                                   end: Date(storeValue: max(start, end))),
                                             metadata: try MetadataCoding.decode(metadata)))
            case let .activityBegan(uuid, configuration, start, metadata):
                activities.append(.init(uuid: uuid, configuration: try configuration.configuration(), start: Date(storeValue: start),
                                        end: nil, metadata: try MetadataCoding.decode(metadata)))
                statistics.beginActivity(uuid, start: Date(storeValue: start), end: nil)
            case let .activityEnded(uuid, end):
                if let index = activities.firstIndex(where: { $0.uuid == uuid }) { activities[index].end = Date(storeValue: end) }
                statistics.endActivity(uuid, at: Date(storeValue: end))
            case .metadata(let json):
                metadata.merge(try MetadataCoding.decode(json) ?? [:]) { $1 }
            case .associated(let uuid):
                associated.append(uuid)
            case let .zoneConfiguration(type, source, boundaries):
                zoneConfigurations.append(try HKWorkoutZoneConfiguration(journaled: type, source: source, boundaries: boundaries))
            }
        }
        events.sort { $0.dateInterval.start < $1.dateInterval.start }
        machine = SessionStateMachine(state: state, startDate: startDate, endDate: endDate)
    }
}

extension HKLiveWorkoutBuilder {
    /// Takes over a replayed journal.
    func restore(_ recording: RecoveredRecording) {
        locked {
            lifecycle = recording.lifecycle
            events = recording.events
            activities = recording.activities
            storedMetadata = recording.metadata
            associatedUUIDs = recording.associated
            core.statistics = recording.statistics
            core.zones.restore(recording.zoneConfigurations, events: recording.events, samples: recording.zoneSamples)
            core.journal = JournalBuffer(sequence: recording.sequence)
            journal = LiveJournal(database: recording.database, builderID: recording.builderID)
        }
        if recording.lifecycle.phase == .active { startFlushing() }
    }
}
