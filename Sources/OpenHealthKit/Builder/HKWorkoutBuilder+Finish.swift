import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

extension HKWorkoutBuilder {
    /// Saves the workout — with its activities, events, statistics and every collected sample, associated — in one
    /// transaction, and returns it. The builder must have ended collection.
    public func finishWorkout() async throws -> HKWorkout? {
        try refuseOnMirroredSession()
        let database = try healthStore.database()
        // Everything handed to the journal's writer is written first, outside the lock; what is still buffered is
        // saved with the workout in its transaction.
        await currentJournal?.waitForWrites()
        let finishing = try withCore { core in
            try core.finish(configuration: configuration, device: device, sourceRevision: healthStore.sourceRevision)
        }
        let (workout, liveJournal, associated) = (
            finishing.workout, finishing.writer as? LiveJournal, finishing.associated
        )
        let pending = (samples: finishing.samples, beats: finishing.beats)
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
            // On GRDB's writer queue, the task suspended: no cooperative thread waits on the store's lock.
            try await database.write { db in
                try self.healthStore.checkShareAuthorization(for: types, db)
                guard let workoutID = try database.insert([box.value.0], source: revision, db).first else {
                    throw HKError(.errorDatabaseInaccessible, "The workout could not be saved.")
                }
                if let liveJournal {
                    _ = try database.moveJournalSamples(
                        builderID: liveJournal.builderID, extra: box.value.1,
                        workoutID: workoutID, source: revision, db)
                    try self.saveHeartbeats(
                        journaledBy: liveJournal.builderID, then: pending.beats,
                        workoutID: workoutID, source: revision, database, db)
                    try liveJournal.close(db)
                } else {
                    _ = try database.moveJournalSamples(
                        builderID: -1, extra: box.value.1, workoutID: workoutID,
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
            let now = monotonic.now()
            withCore { $0.finishFailed(restoring: pending.samples, beats: pending.beats, now: now) }
            throw error
        }
        withCore { $0.closeJournal() }
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
    func saveHeartbeats(
        journaledBy builderID: Int64, then pending: [HeartbeatCollector.Beat], workoutID: Int64,
        source: HKSourceRevision, _ database: StoreDatabase, _ db: Database
    ) throws {
        let size = HKHeartbeatSeriesBuilder.maximumCount
        var chunk: [HeartbeatCollector.Beat] = []
        func save() throws {
            guard let first = chunk.first, let last = chunk.last else { return }
            let encoded = chunk.map {
                HeartbeatSeriesCodec.Beat(offset: $0.time - first.time, precededByGap: $0.precededByGap)
            }
            let series = HKHeartbeatSeriesSample(
                count: encoded.count, startDate: Date(storeValue: first.time),
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
        // HealthKit's call is synchronous, and its store write blocks the caller anyway: the one place that blocks
        // on the journal's writer. Never on the path of a reading.
        currentJournal?.waitForWritesBlocking()
        guard let discarded = withCore({ $0.discard() }), let liveJournal = discarded.writer as? LiveJournal,
            let database = try? healthStore.database()
        else { return }
        let source = healthStore.sourceRevision
        do {
            try database.write { db in
                _ = try database.moveJournalSamples(
                    builderID: liveJournal.builderID, extra: discarded.samples, workoutID: nil, source: source,
                    onlyAppAdded: true, db)
                try liveJournal.close(db)
            }
            withCore { $0.closeJournal() }
        } catch {
            // The journal stays; recovery will offer the samples again.
        }
        healthStore.notifyChange()
        didFinish()
    }

    // MARK: Completion-handler forms

    public func beginCollection(withStart startDate: Date, completion: @escaping @Sendable (Bool, (any Error)?) -> Void)
    {
        report({ try await self.beginCollection(at: startDate) }, completion)
    }

    public func endCollection(withEnd endDate: Date, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        report({ try await self.endCollection(at: endDate) }, completion)
    }

    public func add(_ samples: [HKSample], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let box = UncheckedBox(samples)
        report({ try await self.addSamples(box.value) }, completion)
    }

    public func addWorkoutEvents(
        _ workoutEvents: [HKWorkoutEvent], completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        let box = UncheckedBox(workoutEvents)
        report({ try await self.addWorkoutEvents(box.value) }, completion)
    }

    public func addMetadata(_ metadata: [String: Any], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let box = UncheckedBox(metadata)
        report({ try await self.addMetadata(box.value) }, completion)
    }

    public func addWorkoutActivity(
        _ workoutActivity: HKWorkoutActivity, completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        report({ try await self.addWorkoutActivity(workoutActivity) }, completion)
    }

    public func updateActivity(
        uuid UUID: UUID, end endDate: Date, completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        report({ try await self.updateActivity(uuid: UUID, end: endDate) }, completion)
    }

    public func updateActivity(
        uuid UUID: UUID, adding metadata: [String: Any],
        completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
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

    private func report(
        _ operation: @escaping @Sendable () async throws -> Void,
        _ completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        healthStore.report(operation) { result in
            let (success, error) = result.healthKitPair
            completion(success, error)
        }
    }
}
