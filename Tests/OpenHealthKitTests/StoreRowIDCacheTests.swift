import Foundation
import GRDB
import Testing

@testable import OpenHealthKit

/// The store's caches of type, source and device ids against a rolled-back transaction: SQLite gives the rowid a
/// rolled-back insert had used to the next insert (the `types`, `sources` and `devices` tables are not
/// AUTOINCREMENT), so an id remembered from inside a transaction that did not commit would name another row.
@Suite(.timeLimit(.minutes(1))) struct StoreRowIDCacheTests {
    struct RolledBack: Error {}

    /// Runs `body` in a write transaction that then rolls back.
    func inRolledBackTransaction(_ database: StoreDatabase, _ body: (Database) throws -> Void) throws {
        #expect(throws: RolledBack.self) {
            try database.write { db in
                try body(db)
                throw RolledBack()
            }
        }
    }

    @Test func aTypeIDFromARolledBackTransactionIsNotReused() throws {
        let database = StoreDatabase.inMemory()
        let heartRate = HKQuantityTypeIdentifier.heartRate.rawValue
        let power = HKQuantityTypeIdentifier.cyclingPower.rawValue
        try inRolledBackTransaction(database) { db in _ = try database.typeID(heartRate, db) }
        let powerID = try database.write { db in try database.typeID(power, db) }
        let heartRateID = try database.write { db in try database.typeID(heartRate, db) }
        #expect(heartRateID != powerID)
        // Each id names its own row.
        let stored = try database.read { db in
            try String.fetchAll(
                db, sql: "SELECT identifier FROM types WHERE id IN (?, ?) ORDER BY id",
                arguments: [powerID, heartRateID])
        }
        #expect(stored == [power, heartRate])
        #expect(try database.read { db in try database.existingTypeID(heartRate, db) } == heartRateID)
    }

    @Test func aSourceIDFromARolledBackTransactionIsNotReused() throws {
        let database = StoreDatabase.inMemory()
        func revision(_ bundle: String) -> HKSourceRevision {
            HKSourceRevision(
                source: HKSource(name: bundle, bundleIdentifier: bundle), version: "1", productType: nil,
                operatingSystemVersion: OperatingSystemVersion(majorVersion: 1, minorVersion: 0, patchVersion: 0))
        }
        try inRolledBackTransaction(database) { db in _ = try database.sourceID(revision("phone"), db) }
        let watchID = try database.write { db in try database.sourceID(revision("watch"), db) }
        let phoneID = try database.write { db in try database.sourceID(revision("phone"), db) }
        #expect(phoneID != watchID)
        #expect(
            try database.read { db in try database.sourceRevision(id: phoneID, db).source.bundleIdentifier } == "phone")
        #expect(
            try database.read { db in try database.sourceRevision(id: watchID, db).source.bundleIdentifier } == "watch")
    }

    @Test func aDeviceIDFromARolledBackTransactionIsNotReused() throws {
        let database = StoreDatabase.inMemory()
        let strap = HKDevice(
            name: "Strap", manufacturer: nil, model: nil, hardwareVersion: nil, firmwareVersion: nil,
            softwareVersion: nil, localIdentifier: "AA", udiDeviceIdentifier: nil)
        let meter = HKDevice(
            name: "Meter", manufacturer: nil, model: nil, hardwareVersion: nil, firmwareVersion: nil,
            softwareVersion: nil, localIdentifier: "BB", udiDeviceIdentifier: nil)
        try inRolledBackTransaction(database) { db in _ = try database.deviceID(strap, db) }
        let meterID = try database.write { db in try database.deviceID(meter, db) }
        let strapID = try database.write { db in try database.deviceID(strap, db) }
        #expect(strapID != meterID)
        #expect(try database.read { db in try database.device(id: strapID, db).name } == "Strap")
        #expect(try database.read { db in try database.device(id: meterID, db).name } == "Meter")
    }

    /// A row read back by id inside a transaction that rolls back is not remembered either.
    @Test func aRowReadByIDInsideARolledBackTransactionIsNotRemembered() throws {
        let database = StoreDatabase.inMemory()
        try inRolledBackTransaction(database) { db in
            let id = try database.typeID(HKQuantityTypeIdentifier.heartRate.rawValue, db)
            #expect(try database.sampleType(id: id, db).identifier == HKQuantityTypeIdentifier.heartRate.rawValue)
        }
        let id = try database.write { db in try database.typeID(HKQuantityTypeIdentifier.stepCount.rawValue, db) }
        #expect(
            try database.read { db in try database.sampleType(id: id, db).identifier }
                == HKQuantityTypeIdentifier.stepCount.rawValue)
    }

    /// Through the store's reads and saves: a save rolled back after inserting its heart rate leaves no id behind
    /// that the steps saved next could share (with the bug, each query returned both samples).
    @Test func samplesOfTwoTypesDoNotMixAfterAFailedSave() async throws {
        let store = try await authorizedStore()
        let database = try store.database()
        try inRolledBackTransaction(database) { db in
            _ = try database.insert([heartRate(150, at: 0)], source: store.sourceRevision, db)
        }
        let steps = HKQuantityType(.stepCount)
        try await store.save(
            HKQuantitySample(
                type: steps, quantity: HKQuantity(unit: .count(), doubleValue: 40),
                start: t0, end: t0 + 60))
        try await store.save(heartRate(150, at: 0))
        #expect(try await fetch(store, steps, nil).count == 1)
        #expect(try await fetch(store, HKQuantityType(.heartRate), nil).count == 1)
    }
}
