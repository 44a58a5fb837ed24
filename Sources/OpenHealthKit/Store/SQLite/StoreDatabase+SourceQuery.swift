import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

/// SQL for source queries.
extension StoreDatabase {
    /// The sources (apps, programs) that saved samples matching the descriptors, as this client may read them.
    func sources(_ descriptors: [HKQueryDescriptor], access: ReadAccess, _ db: Database) throws -> Set<HKSource> {
        guard let condition = try whereClause(for: descriptors, access: access, db) else { return [] }
        let ids = try Int64.fetchAll(
            db, sql: "SELECT DISTINCT s.source_id FROM samples s WHERE \(condition.sql)",
            arguments: StatementArguments(condition.arguments))
        return Set(try ids.map { try sourceRevision(id: $0, db).source })
    }
}
