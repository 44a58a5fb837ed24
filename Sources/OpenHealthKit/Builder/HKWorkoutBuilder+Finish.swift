import Foundation
import GRDB

extension HKWorkoutBuilder {
    /// Saves the workout — with its activities, events, statistics and every collected sample, associated — in one
    /// transaction, and returns it. The builder must have ended collection.
    public func finishWorkout() async throws -> HKWorkout? {
        try refuseOnMirroredSession()
        let database = try healthStore.database()
        // Everything handed to the journal's writer is written first, outside the lock; what is still buffered is
        // saved with the workout in its transaction.
        await currentJournal?.waitForWrites()
        let (workout, pending, liveJournal, associated) = try locked { () -> (HKWorkout, (samples: [CollectedSample], beats: [HeartbeatCollector.Beat]), LiveJournal?, [UUID]) in
            var next = lifecycle
            try next.finish()
            guard let start = lifecycle.startDate, let end = lifecycle.endDate else {
                throw HKError(.errorInvalidArgument, "The workout cannot be finished before collection has ended.")
            }
            let workout = HKWorkout(activityType: configuration.activityType, startDate: start, endDate: end,
                                    duration: lifecycle.elapsedTime(at: end, events: events),
                                    events: events, activities: activities.map { record in
                                        // An activity ended after the workout (a late clock) ends with it.
                                        var clamped = record
                                        clamped.end = min(record.end ?? end, end)
                                        return makeActivity(clamped, through: end)
                                    },
                                    statistics: core.statistics.allStatistics(start: start, through: end, source: source),
                                    uuid: UUID(), metadata: storedMetadata, device: device,
                                    sourceRevision: healthStore.sourceRevision,
                                    zoneGroups: core.zones.groups(from: start, to: end))
            try workout.validate()
            lifecycle = next
            return (workout, core.journal.takePending(), journal, associatedUUIDs)
        }
        // Only the workout type needs share authorization here, as in HealthKit: Apple's Apple Watch sample shares
        // only `workoutType()` and its live builder still saves the heart rate, energy and distance its data
        // source collected. Samples the app added itself were checked by `addSamples`. What a data source
        // collected is saved with this client as its source (the store's `sourceRevision`) and the sensor as its
        // device; other clients, and this one, read it back under the usual read rules.
        let types: [HKObjectType] = [HKObjectType.workoutType()]
        let revision = healthStore.sourceRevision
        let sensors = workoutSensorsToSave()
        let box = UncheckedBox((workout, pending.samples))
        do {
            try await database.write { db in
                try self.healthStore.checkShareAuthorization(for: types, db)
                guard let workoutID = try database.insert([box.value.0], source: revision, db).first else {
                    throw HKError(.errorDatabaseInaccessible, "The workout could not be saved.")
                }
                if let liveJournal {
                    _ = try database.moveJournalSamples(builderID: liveJournal.builderID, extra: box.value.1,
                                                        workoutID: workoutID, source: revision, db)
                    try self.saveHeartbeats(journaledBy: liveJournal.builderID, then: pending.beats,
                                            workoutID: workoutID, source: revision, database, db)
                    try liveJournal.close(db)
                } else {
                    _ = try database.moveJournalSamples(builderID: -1, extra: box.value.1, workoutID: workoutID,
                                                        source: revision, db)
                }
                for uuid in associated {
                    if let id = try database.sampleID(uuid: uuid, db) {
                        try database.associate(sampleID: id, workoutID: workoutID, db)
                    }
                }
                try database.insertWorkoutSensors(sensors, workoutID: workoutID, db)
            }
        } catch {
            // Nothing was saved: the builder can be finished again.
            locked {
                lifecycle = BuilderLifecycle(phase: .ended, startDate: lifecycle.startDate, endDate: lifecycle.endDate)
                if liveJournal != nil { core.journal.restore(pending.samples, beats: pending.beats, now: monotonic.now()) }
            }
            throw error
        }
        locked { core.journal.close() }
        healthStore.notifyChange()
        didFinish()
        return workout
    }

    /// Saves heartbeats rebuilt from RR intervals — the journal's, in order, then `pending` — as heartbeat series
    /// associated with the workout, in series of at most `HKHeartbeatSeriesBuilder.maximumCount` beats. The journal
    /// is read one batch at a time and each series is saved when it is full, so memory does not grow with the
    /// workout's length. Like the quantities a data source collects, they are saved under the workout's share
    /// authorization (the caller checked `workoutType()`), as a watch saves the heartbeats of a workout whose app
    /// asked to share only the workout type.
    func saveHeartbeats(journaledBy builderID: Int64, then pending: [HeartbeatCollector.Beat], workoutID: Int64,
                        source: HKSourceRevision, _ database: StoreDatabase, _ db: Database) throws {
        let size = HKHeartbeatSeriesBuilder.maximumCount
        var chunk: [HeartbeatCollector.Beat] = []
        func save() throws {
            guard let first = chunk.first, let last = chunk.last else { return }
            let encoded = chunk.map { HeartbeatSeriesCodec.Beat(offset: $0.time - first.time, precededByGap: $0.precededByGap) }
            let series = HKHeartbeatSeriesSample(count: encoded.count, startDate: Date(storeValue: first.time),
                                                 endDate: Date(storeValue: last.time), uuid: FastUUID.next(), metadata: nil,
                                                 device: device, sourceRevision: source, beats: encoded)
            _ = try database.insert([series], source: source, workoutID: workoutID, db)
            chunk.removeAll(keepingCapacity: true)
        }
        func take(_ beats: [HeartbeatCollector.Beat]) throws {
            for beat in beats {
                chunk.append(beat)
                if chunk.count == size { try save() }
            }
        }
        try database.forEachJournalHeartbeatBatch(builderID: builderID, db) { try take($0) }
        try take(pending)
        try save()
    }

    /// Discards the workout. Samples the app added stay in the store, unassociated; samples a data source
    /// collected are dropped. Nothing can be added afterwards.
    public func discardWorkout() {
        currentJournal?.waitForWritesBlocking()
        let (liveJournal, pending) = locked { () -> (LiveJournal?, [CollectedSample]) in
            guard lifecycle.phase != .finished && lifecycle.phase != .discarded else { return (nil, []) }
            lifecycle.discard()
            return (journal, core.journal.takePending().samples)
        }
        guard let liveJournal, let database = try? healthStore.database() else { return }
        let source = healthStore.sourceRevision
        do {
            try database.write { db in
                _ = try database.moveJournalSamples(builderID: liveJournal.builderID, extra: pending, workoutID: nil, source: source,
                                                    onlyAppAdded: true, db)
                try liveJournal.close(db)
            }
            locked { core.journal.close() }
        } catch {
            // The journal stays; recovery will offer the samples again.
        }
        healthStore.notifyChange()
        didFinish()
    }

    // MARK: Completion-handler forms

    public func beginCollection(withStart startDate: Date, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        report({ try await self.beginCollection(at: startDate) }, completion)
    }

    public func endCollection(withEnd endDate: Date, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        report({ try await self.endCollection(at: endDate) }, completion)
    }

    public func add(_ samples: [HKSample], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let box = UncheckedBox(samples)
        report({ try await self.addSamples(box.value) }, completion)
    }

    public func addWorkoutEvents(_ workoutEvents: [HKWorkoutEvent], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let box = UncheckedBox(workoutEvents)
        report({ try await self.addWorkoutEvents(box.value) }, completion)
    }

    public func addMetadata(_ metadata: [String: Any], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let box = UncheckedBox(metadata)
        report({ try await self.addMetadata(box.value) }, completion)
    }

    public func addWorkoutActivity(_ workoutActivity: HKWorkoutActivity, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        report({ try await self.addWorkoutActivity(workoutActivity) }, completion)
    }

    public func updateActivity(uuid UUID: UUID, end endDate: Date, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        report({ try await self.updateActivity(uuid: UUID, end: endDate) }, completion)
    }

    public func updateActivity(uuid UUID: UUID, adding metadata: [String: Any],
                               completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let box = UncheckedBox(metadata)
        report({ try await self.updateActivity(uuid: UUID, adding: box.value) }, completion)
    }

    public func finishWorkout(completion: @escaping @Sendable (HKWorkout?, (any Error)?) -> Void) {
        healthStore.report({ UncheckedBox(try await self.finishWorkout()) }) { result in
            switch result {
            case .success(let workout): completion(workout.value, nil)
            case .failure(let error): completion(nil, error)
            }
        }
    }

    private func report(_ operation: @escaping @Sendable () async throws -> Void,
                        _ completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        healthStore.report(operation) { result in
            let (success, error) = result.healthKitPair
            completion(success, error)
        }
    }
}
