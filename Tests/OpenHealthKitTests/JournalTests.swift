import Foundation
import GRDB
@testable import OpenHealthKit
import Testing

/// The live journal's writer queue: batches reach the store in order, a batch that fails to write goes back to the
/// buffer and its error is reported, and nothing is lost once the store takes writes again.
@Suite struct JournalTests {
    func journal() async throws -> (StoreDatabase, LiveJournal) {
        let (store, _) = try await liveStore()
        let database = try store.database()
        let journal = try LiveJournal.create(database: database, builderUUID: UUID(), client: "tests", hasSession: false,
                                             configuration: configuration(.cycling), device: nil, now: t0)
        return (database, journal)
    }

    func samples(_ range: Range<Int>) -> [CollectedSample] {
        range.map { CollectedSample(type: HKQuantityType(.heartRate), start: Double($0), end: Double($0), value: 100 + Double($0 % 50)) }
    }

    func journaledStarts(_ database: StoreDatabase, _ journal: LiveJournal) throws -> [Double] {
        try database.read { db in
            try Data.fetchAll(db, sql: "SELECT payload FROM live_journal WHERE builder_id = ? AND kind = 1 ORDER BY seq",
                              arguments: [journal.builderID])
                .flatMap { try SampleBatchCodec.decode([UInt8]($0)).map(\.start) }
        }
    }

    @Test func batchesAreWrittenInOrderBesideTheCaller() async throws {
        let (database, journal) = try await journal()
        for start in stride(from: 0, to: 10_000, by: 100) { try journal.append(samples(start ..< start + 100)) }
        try journal.flush()
        #expect(journal.pendingCount == 0)
        #expect(try journaledStarts(database, journal) == (0 ..< 10_000).map(Double.init))
    }

    @Test func aFailedWriteKeepsItsSamplesAndReportsTheError() async throws {
        let (database, journal) = try await journal()
        // The journal's row disappears: every write of its entries now breaks the foreign key.
        let row = try database.read { db in try Row.fetchOne(db, sql: "SELECT * FROM live_builders WHERE id = ?", arguments: [journal.builderID])! }
        try database.write { db in try db.execute(sql: "DELETE FROM live_builders WHERE id = ?", arguments: [journal.builderID]) }
        try journal.append(samples(0 ..< 5_000))      // a full batch is handed to the writer, which fails
        #expect(throws: (any Error).self) { try journal.flush() }
        #expect(journal.pendingCount == 5_000)
        // The store takes writes again: the same samples are written, once, in order.
        try database.write { db in
            try db.execute(sql: "INSERT INTO live_builders (id, uuid, client, has_session, configuration, device, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
                           arguments: StatementArguments(["id", "uuid", "client", "has_session", "configuration", "device", "created"].map { row[$0] as DatabaseValue }))
        }
        try journal.append(samples(5_000 ..< 5_010))
        try journal.flush()
        #expect(journal.pendingCount == 0)
        #expect(try journaledStarts(database, journal) == (0 ..< 5_010).map(Double.init))
    }
}

/// Collected samples carry codes, not references: the codes must give back the same types and devices.
@Suite struct SampleCodeTests {
    @Test func everyCatalogTypeRoundTripsThroughItsCode() {
        for type in QuantityTypeCatalog.byCode {
            #expect(HKQuantityType.forCode(type.code) === type)
            #expect(HKQuantityType(HKQuantityTypeIdentifier(rawValue: type.identifier)).code == type.code)
        }
    }

    @Test func equalDevicesShareACodeAndNoDeviceIsZero() {
        let strap = HKDevice(name: "Strap \(UUID())", manufacturer: "ACME", model: "HR-1", hardwareVersion: nil, firmwareVersion: nil,
                             softwareVersion: nil, localIdentifier: "codes:1", udiDeviceIdentifier: nil)
        let same = HKDevice(name: strap.name, manufacturer: "ACME", model: "HR-1", hardwareVersion: nil, firmwareVersion: nil,
                            softwareVersion: nil, localIdentifier: "codes:1", udiDeviceIdentifier: nil)
        let other = HKDevice(name: strap.name, manufacturer: "ACME", model: "HR-2", hardwareVersion: nil, firmwareVersion: nil,
                             softwareVersion: nil, localIdentifier: "codes:1", udiDeviceIdentifier: nil)
        #expect(DeviceCodes.code(for: nil) == 0)
        #expect(DeviceCodes.device(0) == nil)
        let code = DeviceCodes.code(for: strap)
        #expect(code != 0)
        #expect(DeviceCodes.code(for: same) == code)
        #expect(DeviceCodes.code(for: other) != code)
        #expect(DeviceCodes.device(code) == strap)
        let sample = CollectedSample(type: HKQuantityType(.cyclingPower), start: 1, end: 1, value: 200, unitString: "kW", device: same)
        #expect(sample.device == strap && sample.type == HKQuantityType(.cyclingPower) && sample.unitString == "kW")
    }
}
