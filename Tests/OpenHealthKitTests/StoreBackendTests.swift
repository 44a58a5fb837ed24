import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// The store's seam (``StoreBackend``) driven directly against the SQLite backend on a real file: the named
/// operations take and give values, verify share checks inside their own transaction, keep anchors growing, and
/// recover a journal as it was appended.
@Suite(.postgresCluster, .timeLimit(.minutes(1))) struct StoreBackendTests {
    let client = "seam-tests"
    let source = HKSourceRevision.current(clientIdentifier: "seam-tests")

    /// A fresh SQLite store file, opened off the cooperative pool, with `client` allowed to share and read the
    /// heart rate and workouts.
    func backend(
        _ directory: borrowing TemporaryDirectory, _ kind: StoreKind = .sqlite
    ) async throws
        -> any StoreBackend
    {
        let backend: any StoreBackend =
            kind == .sqlite
            ? try await StoreDatabase.open(path: directory.file("seam.sqlite")) : try await kind.backend(directory)
        let types: Set<String> = [HKQuantityTypeIdentifier.heartRate.rawValue, HKWorkoutTypeIdentifier]
        try await backend.updateAuthorization(client: client, types: types) { _ in
            Dictionary(uniqueKeysWithValues: types.map { ($0, AuthorizationDecision(share: 2, read: 1)) })
        }
        return backend
    }

    /// A new recording's journal (with a session) of `client`.
    func newJournal(_ backend: any StoreBackend) async throws -> Int64 {
        try await backend.createJournal(
            JournalHeader(
                builderUUID: UUID(), client: client, hasSession: true, configuration: "{}", device: nil, created: t0))
    }

    var heartRateCheck: ShareCheck { ShareCheck(client: client, types: [HKQuantityType(.heartRate)]) }
    var heartRateDescriptor: HKQueryDescriptor {
        HKQueryDescriptor(sampleType: HKQuantityType(.heartRate), predicate: nil)
    }

    @Test(arguments: StoreKind.available) func savedSamplesReadBackSortedWithGrowingAnchors(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let backend = try await backend(directory, kind)
        let before = try await backend.currentAnchor()
        // Given two heart-rate samples saved out of order
        try await backend.save([heartRate(150, at: 10), heartRate(120, at: 0)], source: source, check: heartRateCheck)
        // When they are read back sorted by start date
        let sorts = [SampleSort(NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true))]
        let samples = try await backend.samples([heartRateDescriptor], limit: 0, sorts: sorts, client: client)
        // Then they come in start order, and the anchor moved past both inserts
        #expect(samples.map(\.startDate) == [t0, t0 + 10])
        let changes = try await backend.changes([heartRateDescriptor], after: before, limit: 0, client: client)
        #expect(changes.added.count == 2)
        #expect(changes.currentAnchor >= before + 2)
        #expect(try await backend.readableTypes(client: client).contains(HKQuantityTypeIdentifier.heartRate.rawValue))
    }

    @Test(arguments: StoreKind.available) func aLargeSaveKeepsItsOrderStoresEachObjectOnceAndAssociatesOnce(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let store = try await kind.authorizedStore(directory)
        let strap = HKDevice(
            name: "Strap", manufacturer: "Acme", model: nil, hardwareVersion: nil, firmwareVersion: nil,
            softwareVersion: nil, localIdentifier: nil, udiDeviceIdentifier: nil)
        // Given 200 heart rates (more than one statement's rows), every other one from a strap, one saved already
        var samples: [HKQuantitySample] = []
        for index in 0 ..< 200 {
            let offset = Double(index)
            let bpm = HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: 100 + Double(index % 50))
            let device: HKDevice? = index % 2 == 0 ? strap : nil
            samples.append(
                HKQuantitySample(
                    type: HKQuantityType(.heartRate), quantity: bpm, start: t0 + offset, end: t0 + offset + 1,
                    device: device, metadata: nil))
        }
        try await store.save([samples[7]])
        let anchor = try await store.backend().currentAnchor()
        // When they are saved in one call, one of them twice, in an order that is not their dates'
        samples.swapAt(3, 150)
        try await store.save(samples + [samples[42]])
        // Then each is stored once, anchors follow the order of the call, and the strap is one device
        let backend = try store.backend()
        let changes = try await backend.changes([heartRateDescriptor], after: anchor, limit: 0, client: "tests")
        let alreadyStored = samples[7].uuid
        let added: [UUID] = changes.added.map { $0.sample.uuid }
        let expected: [UUID] = samples.map(\.uuid).filter { $0 != alreadyStored }
        #expect(added == expected)
        let stored = try await fetch(store, HKQuantityType(.heartRate), nil)
        #expect(stored.count == 200)
        #expect(stored.filter { $0.device?.name == "Strap" }.count == 100)
        #expect(Set(stored.compactMap { $0.device }).count == 1)
        // And when two workouts take them, the second half of them, each sample belongs to the workouts it was added to
        let first = legacy.workout(activityType: .cycling, start: t0, end: t0 + 200)
        let second = legacy.workout(activityType: .running, start: t0 + 100, end: t0 + 200)
        try await store.save([first, second])
        try await legacy.add(samples, to: first, in: store)
        try await legacy.add(Array(samples[100...]), to: second, in: store)
        try await legacy.add(Array(samples[100...]), to: second, in: store)
        let ofFirst = try await fetch(store, HKQuantityType(.heartRate), HKQuery.predicateForObjects(from: first))
        let ofSecond = try await fetch(store, HKQuantityType(.heartRate), HKQuery.predicateForObjects(from: second))
        #expect(Set(ofFirst.map(\.uuid)) == Set(samples.map(\.uuid)))
        #expect(Set(ofSecond.map(\.uuid)) == Set(samples[100...].map(\.uuid)))
        #expect(ofSecond.count == 100)
    }

    @Test(arguments: StoreKind.available) func aShareCheckIsVerifiedInsideTheWrite(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let backend = try await backend(directory, kind)
        // Given a type the client never asked to share
        let steps = ShareCheck(client: client, types: [HKQuantityType(.stepCount)])
        // Then saving under it fails with HealthKit's error, and nothing is written
        await expectHKError(.errorAuthorizationNotDetermined) {
            try await backend.save([heartRate(100, at: 0)], source: source, check: steps)
        }
        #expect(try await backend.samples([heartRateDescriptor], limit: 0, sorts: [], client: client).isEmpty)
    }

    @Test(arguments: StoreKind.available) func deletionIsRecordedAsADeletedObject(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let backend = try await backend(directory, kind)
        let sample = heartRate(130, at: 0)
        try await backend.save([sample], source: source, check: heartRateCheck)
        let anchor = try await backend.currentAnchor()
        try await backend.delete([sample], client: client, now: t0 + 60, check: heartRateCheck)
        let changes = try await backend.changes([heartRateDescriptor], after: anchor, limit: 0, client: client)
        #expect(changes.added.isEmpty)
        #expect(changes.deleted.map(\.object.uuid) == [sample.uuid])
        // Another client may not delete what this one saved
        try await backend.save([heartRate(131, at: 5)], source: source, check: heartRateCheck)
        let other = "someone-else"
        let otherTypes: Set<String> = [HKQuantityTypeIdentifier.heartRate.rawValue]
        try await backend.updateAuthorization(client: other, types: otherTypes) { _ in
            [HKQuantityTypeIdentifier.heartRate.rawValue: AuthorizationDecision(share: 2, read: 1)]
        }
        let theirs = try await backend.samples([heartRateDescriptor], limit: 0, sorts: [], client: other)
        await expectHKError(.errorAuthorizationDenied) {
            try await backend.delete(
                theirs, client: other, now: t0 + 90,
                check: ShareCheck(client: other, types: [HKQuantityType(.heartRate)]))
        }
    }

    // appendJournal blocks its caller (LiveJournal calls it on its writer's queue), hence `.blockingWaits`.
    @Test(.blockingWaits, arguments: StoreKind.available) func aJournalIsRecoveredAsAppendedAndFinishedIntoAWorkout(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let backend = try await backend(directory, kind)
        // Given a recording's journal with one sample batch and one entry, appended in order; the batch also holds a
        // quantity of a sample the store holds already
        let builderID = try await newJournal(backend)
        let batch = JournalBatch()
        var stored = try CollectedSample(heartRate(141, at: 2) as HKQuantitySample)
        stored.appAdded = true
        stored.alreadyStored = true
        batch.samples = [try CollectedSample(heartRate(140, at: 1) as HKQuantitySample), stored]
        batch.samplesSequence = 1
        batch.entry = (2, .entry, Array("{}".utf8))
        try backend.appendJournal(batch, builderID: builderID)
        // When recovery reads it back
        let recovered = try #require(try await backend.interruptedRecording(client: client))
        // Then its rows come in sequence order, and the batch's type is named
        #expect(recovered.builderID == builderID)
        #expect(recovered.rows.map(\.sequence) == [1, 2])
        #expect(recovered.typeIdentifiers.values.contains(HKQuantityTypeIdentifier.heartRate.rawValue))
        let records = try SampleBatchCodec.decode(try #require(recovered.rows.first).payload)
        #expect(records.map(\.alreadyStored) == [false, true] && records.map(\.appAdded) == [false, true])
        // And finishing moves the journal's samples into the workout (not the stored one's quantity), and the
        // journal is gone
        let workout = legacy.workout(activityType: .cycling, start: t0, end: t0 + 60)
        try await backend.finishWorkout(
            WorkoutToFinish(
                workout: workout, samples: [], beats: [], builderID: builderID, associated: [], sensors: [],
                device: nil, source: source),
            check: ShareCheck(client: client, types: [HKObjectType.workoutType()]))
        #expect(try await backend.interruptedRecording(client: client) == nil)
        let associated = try await backend.samples(
            [
                HKQueryDescriptor(
                    sampleType: HKQuantityType(.heartRate), predicate: HKQuery.predicateForObjects(from: workout))
            ], limit: 0, sorts: [], client: client)
        #expect(associated.count == 1)
    }

    @Test func pairedSensorsAndTheChangeProbe() async throws {
        let directory = try TemporaryDirectory()
        let backend = try await backend(directory)
        try await backend.pairSensor(
            PairedSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap), at: t0)
        #expect(try await backend.pairedSensors().map(\.identifier) == ["test:strap"])
        #expect(try await backend.unpairSensor(identifier: "test:strap"))
        #expect(try await backend.pairedSensors().isEmpty)
        // The probe's version moves when another connection commits
        let probe = try #require(try await backend.changeProbe())
        let before = try await probe.version()
        try await backend.save([heartRate(99, at: 0)], source: source, check: heartRateCheck)
        #expect(try await probe.version() != before)
        #expect(try await StoreDatabase.inMemory().changeProbe() == nil)
    }

    @Test(.blockingWaits, arguments: StoreKind.available) func aDiscardedRecordingKeepsOnlyWhatTheAppAdded(
        kind: StoreKind
    ) async throws {
        let directory = try TemporaryDirectory()
        let backend = try await backend(directory, kind)
        // Given a journal with a collected sample and an app-added one, and one more app-added sample not yet
        // journaled; and, journaled and not, a quantity of a sample the store holds already (counted, never moved)
        let builderID = try await newJournal(backend)
        let collected = try CollectedSample(heartRate(120, at: 1) as HKQuantitySample)
        var added = try CollectedSample(heartRate(121, at: 2) as HKQuantitySample)
        added.appAdded = true
        var pending = try CollectedSample(heartRate(122, at: 3) as HKQuantitySample)
        pending.appAdded = true
        var stored = try CollectedSample(heartRate(123, at: 4) as HKQuantitySample)
        stored.appAdded = true
        stored.alreadyStored = true
        var storedPending = try CollectedSample(heartRate(124, at: 5) as HKQuantitySample)
        storedPending.appAdded = true
        storedPending.alreadyStored = true
        let batch = JournalBatch()
        batch.samples = [collected, added, stored]
        batch.samplesSequence = 1
        try backend.appendJournal(batch, builderID: builderID)
        // When the recording is discarded
        try backend.discardRecordingBlocking(builderID: builderID, extra: [pending, storedPending], source: source)
        // Then the app's two samples stay, the collected one is gone, the stored ones are not saved again, and
        // nothing is left to recover
        let kept = try await backend.samples([heartRateDescriptor], limit: 0, sorts: [], client: client)
        #expect(Set(kept.map(\.uuid)) == [added.uuid, pending.uuid])
        #expect(try await backend.interruptedRecording(client: client) == nil)
    }

    @Test(arguments: StoreKind.available) func pairedSensorsKeepTheirPairingOrder(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let backend = try await backend(directory, kind)
        // Given a strap, then a power meter, paired; then the strap paired again under a new name
        try await backend.pairSensor(
            PairedSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap), at: t0)
        try await backend.pairSensor(
            PairedSensor(identifier: "test:meter", name: "Meter", capabilities: [.power, .cadence]), at: t0 + 10)
        try await backend.pairSensor(
            PairedSensor(identifier: "test:strap", name: "Chest strap", capabilities: .heartRateStrap), at: t0 + 20)
        // Then the strap keeps its place with its new name, and each keeps what it measures
        let paired = try await backend.pairedSensors()
        #expect(paired.map(\.identifier) == ["test:strap", "test:meter"])
        #expect(paired.map(\.name) == ["Chest strap", "Meter"])
        #expect(paired.map(\.capabilities) == [.heartRateStrap, [.power, .cadence]])
        // And unpairing says whether it was paired
        #expect(try await backend.unpairSensor(identifier: "test:strap"))
        #expect(!(try await backend.unpairSensor(identifier: "test:strap")))
        #expect(try await backend.pairedSensors().map(\.identifier) == ["test:meter"])
    }

    @Test(arguments: StoreKind.available) func theScheduleHoldsAtMostItsLimitByDate(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let backend = try await backend(directory, kind)
        let (first, second, third) = (UUID(), UUID(), UUID())
        func record(_ id: UUID, _ date: String, _ byte: UInt8) -> ScheduledPlanRecord {
            ScheduledPlanRecord(plan: Data([byte, 0, 0xFF]), planID: id, date: date, complete: false)
        }
        // Given two plans scheduled out of date order, with a limit of two
        #expect(try await backend.schedulePlan(record(second, "2026-12-03", 2), limit: 2))
        #expect(try await backend.schedulePlan(record(first, "2026-12-02", 1), limit: 2))
        // Then a third is refused, while the same plan at the same date replaces its row
        #expect(!(try await backend.schedulePlan(record(third, "2026-12-04", 3), limit: 2)))
        #expect(try await backend.schedulePlan(record(first, "2026-12-02", 9), limit: 2))
        var scheduled = try await backend.scheduledPlans()
        #expect(scheduled.map(\.planID) == [first, second])
        #expect(scheduled.map(\.plan) == [Data([9, 0, 0xFF]), Data([2, 0, 0xFF])])
        // And completion and removal name the plan and its date
        #expect(try await backend.markScheduledPlanComplete(planID: first, date: "2026-12-02"))
        #expect(!(try await backend.markScheduledPlanComplete(planID: first, date: "2026-12-09")))
        #expect(try await backend.removeScheduledPlan(planID: second, date: "2026-12-03"))
        #expect(!(try await backend.removeScheduledPlan(planID: second, date: "2026-12-03")))
        scheduled = try await backend.scheduledPlans()
        #expect(scheduled.map(\.planID) == [first] && scheduled.allSatisfy(\.complete))
        try await backend.removeAllScheduledPlans()
        #expect(try await backend.scheduledPlans().isEmpty)
    }

    @Test(arguments: StoreKind.available) func theLibraryAndAWorkoutsPlanAndSensorsAreKept(kind: StoreKind) async throws
    {
        let directory = try TemporaryDirectory()
        let backend = try await backend(directory, kind)
        // Given two plans added to the library
        let imported = Date(timeIntervalSince1970: 1_795_000_000)
        let firstID = try await backend.addLibraryPlan(
            LibraryPlanRecord(name: "Sweet spot", source: "sweet-spot.zwo", imported: imported, plan: Data([1, 2])))
        let secondID = try await backend.addLibraryPlan(
            LibraryPlanRecord(name: nil, source: "ramp.erg", imported: imported + 60, plan: Data([3])))
        // Then they come back in the order they were added, each by its id
        let library = try await backend.libraryPlans()
        #expect(library.map(\.id) == [firstID, secondID])
        #expect(library.map(\.name) == ["Sweet spot", nil])
        #expect(try await backend.libraryPlan(id: secondID)?.plan == Data([3]))
        #expect(try await backend.libraryPlan(id: secondID)?.imported == imported + 60)
        #expect(try await backend.libraryPlan(id: secondID + 100) == nil)
        // And a workout finished with a plan and two sensors gives them back, in rank order
        let workout = legacy.workout(activityType: .cycling, start: t0, end: t0 + 600)
        let strap = HKDevice(
            name: "Strap", manufacturer: "Polar", model: "H10", hardwareVersion: nil, firmwareVersion: "3.1",
            softwareVersion: nil, localIdentifier: "ble:AA", udiDeviceIdentifier: nil)
        let meter = HKDevice(
            name: "Meter", manufacturer: nil, model: nil, hardwareVersion: nil, firmwareVersion: nil,
            softwareVersion: nil, localIdentifier: "ble:BB", udiDeviceIdentifier: nil)
        try await backend.finishWorkout(
            WorkoutToFinish(
                workout: workout, samples: [], beats: [], builderID: nil, associated: [],
                sensors: [
                    HKWorkoutSensor(device: strap, batteryPercentAtStart: 90, batteryPercentAtEnd: 88),
                    HKWorkoutSensor(device: meter, batteryPercentAtStart: nil, batteryPercentAtEnd: nil),
                ], device: nil, source: source, workoutPlan: Data([7, 7])),
            check: ShareCheck(client: client, types: [HKObjectType.workoutType()]))
        #expect(try await backend.workoutPlan(ofWorkout: workout.uuid) == Data([7, 7]))
        let sensors = try await backend.workoutSensors(of: workout.uuid)
        #expect(sensors.map(\.device.name) == ["Strap", "Meter"])
        #expect(sensors.map(\.device.model) == ["H10", nil])
        #expect(sensors.map(\.batteryPercentAtStart) == [90, nil])
        #expect(sensors.map(\.batteryPercentAtEnd) == [88, nil])
        // And a stored workout's plan can be replaced, while a workout not in the store cannot be given one
        try await backend.setWorkoutPlan(Data([8]), ofWorkout: workout.uuid)
        #expect(try await backend.workoutPlan(ofWorkout: workout.uuid) == Data([8]))
        await expectHKError(.errorInvalidArgument) { try await backend.setWorkoutPlan(Data([8]), ofWorkout: UUID()) }
        #expect(try await backend.workoutPlan(ofWorkout: UUID()) == nil)
        #expect(try await backend.workoutSensors(of: UUID()).isEmpty)
    }

    @Test func openingAsynchronouslyGivesTheStoreOrOneSentence() async throws {
        let directory = try TemporaryDirectory()
        // A folder is not a store: the same HKError the synchronous initializer throws
        let error = await expectHKError(.errorDatabaseInaccessible) {
            _ = try await HKHealthStore.open(databasePath: directory.path, clientIdentifier: client)
        }
        #expect(error?.message.contains(directory.path) == true)
        // A fresh file opens, and its path is the store's
        let store = try await HKHealthStore.open(databasePath: directory.file("open.sqlite"), clientIdentifier: client)
        #expect(store.databasePath == directory.file("open.sqlite"))
        #expect(try await store.pairedSensors().isEmpty)
    }
}
