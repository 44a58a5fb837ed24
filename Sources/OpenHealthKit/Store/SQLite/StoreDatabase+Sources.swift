import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

/// Source priority: which source's data counts where several sources recorded the same stretch of time.
extension StoreDatabase {
    /// One source in a type's priority order.
    struct PrioritizedSource: Equatable {
        var source: HKSource
        /// The source ids (one per revision) of this source that saved the type.
        var sourceIDs: [Int64]
    }

    /// The sources that saved a type, highest priority first: the person's order (`source_priorities`) first, then
    /// the others in the order in which they first saved the type.
    func sourcePriority(typeID: Int64, _ db: Database) throws -> [PrioritizedSource] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT src.bundle_identifier, src.name, ts.source_id, ts.first_anchor, sp.position
                FROM type_sources ts
                JOIN sources src ON src.id = ts.source_id
                LEFT JOIN source_priorities sp ON sp.type_id = ts.type_id AND sp.bundle_identifier = src.bundle_identifier
                WHERE ts.type_id = ?
                ORDER BY sp.position IS NULL, sp.position, ts.first_anchor
                """, arguments: [typeID])
        var order: [PrioritizedSource] = []
        var index: [String: Int] = [:]
        for row in rows {
            let bundle: String = row[0]
            if let at = index[bundle] {
                order[at].sourceIDs.append(row[2])
            } else {
                index[bundle] = order.count
                order.append(
                    PrioritizedSource(source: HKSource(name: row[1], bundleIdentifier: bundle), sourceIDs: [row[2]]))
            }
        }
        return order
    }

    /// The priority rank (0 highest) of every source id that saved a type.
    func sourceRanks(typeID: Int64, _ db: Database) throws -> [Int64: Int] {
        var ranks: [Int64: Int] = [:]
        for (rank, entry) in try sourcePriority(typeID: typeID, db).enumerated() {
            for id in entry.sourceIDs { ranks[id] = rank }
        }
        return ranks
    }

    /// Replaces the person's order for a type with these bundle identifiers, highest priority first.
    func setSourcePriority(typeID: Int64, bundleIdentifiers: [String], _ db: Database) throws {
        try db.execute(sql: "DELETE FROM source_priorities WHERE type_id = ?", arguments: [typeID])
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO source_priorities (type_id, bundle_identifier, position) VALUES (?, ?, ?)
                """)
        for (position, bundle) in bundleIdentifiers.enumerated() {
            try insert.execute(arguments: [typeID, bundle, position])
        }
    }
}
