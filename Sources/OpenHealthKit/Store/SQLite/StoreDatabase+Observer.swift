import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

/// SQL for observer queries: whether anything of a descriptor's type changed after an anchor.
extension StoreDatabase {
    /// The sample types of the descriptors that have samples saved (matching the predicate) or objects deleted (of
    /// the type) after `anchor`, as this client may read them.
    func changedTypes(
        _ descriptors: [HKQueryDescriptor], after anchor: Int64, access: ReadAccess,
        _ db: Database
    ) throws -> Set<HKSampleType> {
        var changed = Set<HKSampleType>()
        for descriptor in descriptors where !changed.contains(descriptor.sampleType) {
            guard let typeID = try existingTypeID(descriptor.sampleType.identifier, db) else { continue }
            if var condition = try whereClause(for: [descriptor], access: access, db) {
                condition.arguments.append(anchor)
                if try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM samples s WHERE \(condition.sql) AND s.id > ?)",
                    arguments: StatementArguments(condition.arguments)) == true
                {
                    changed.insert(descriptor.sampleType)
                    continue
                }
            }
            if access.canRead(descriptor.sampleType.identifier),
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM deleted_objects WHERE type_id = ? AND anchor > ?)",
                    arguments: [typeID, anchor]) == true
            {
                changed.insert(descriptor.sampleType)
            }
        }
        return changed
    }
}
