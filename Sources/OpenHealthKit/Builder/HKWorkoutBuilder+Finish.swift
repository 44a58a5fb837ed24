import Foundation
import HealthKitModel
import WorkoutEngine

extension HKWorkoutBuilder {
    /// Saves the workout — with its activities, events, statistics and every collected sample, associated — in one
    /// transaction, and returns it. The builder must have ended collection.
    public func finishWorkout() async throws -> HKWorkout? {
        try refuseOnMirroredSession()
        let backend = try healthStore.backend()
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
        let finish = WorkoutToFinish(
            workout: workout, samples: pending.samples, beats: pending.beats, builderID: liveJournal?.builderID,
            associated: Array(associated), sensors: workoutSensorsToSave(), device: device,
            source: healthStore.sourceRevision, workoutPlan: attachedWorkoutPlanData)
        do {
            // One named transaction of the store's backend, the task suspended: no cooperative thread waits on the
            // store's lock.
            try await backend.finishWorkout(
                finish, check: ShareCheck(client: healthStore.clientIdentifier, types: [HKObjectType.workoutType()]))
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

    /// Discards the workout. Samples the app added stay in the store, unassociated; samples a data source
    /// collected are dropped. Nothing can be added afterwards.
    public func discardWorkout() {
        // HealthKit's call is synchronous, and its store write blocks the caller anyway: the one place that blocks
        // on the journal's writer. Never on the path of a reading.
        currentJournal?.waitForWritesBlocking()
        guard let discarded = withCore({ $0.discard() }), let liveJournal = discarded.writer as? LiveJournal,
            let backend = try? healthStore.backend()
        else { return }
        do {
            // Synchronous like HealthKit's call: the store's write blocks the caller.
            try backend.discardRecordingBlocking(
                builderID: liveJournal.builderID, extra: discarded.samples, source: healthStore.sourceRevision)
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
        report({ try await self.addSamples(samples) }, completion)
    }

    public func addWorkoutEvents(
        _ workoutEvents: [HKWorkoutEvent], completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        report({ try await self.addWorkoutEvents(workoutEvents) }, completion)
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
        healthStore.report({ try await self.finishWorkout() }) { result in
            switch result {
            case .success(let workout): completion(workout, nil)
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
