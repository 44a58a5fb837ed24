import Foundation
import GRDB

extension StoreDatabase {
    /// The locations of the stored route with this UUID (`workout_routes`, migration v9); `errorNoData` when it
    /// has none.
    func routeLocations(uuid: UUID) throws -> [CLLocation] {
        try read { db in
            guard
                let blob = try Data.fetchOne(
                    db,
                    sql: """
                        SELECT r.locations FROM workout_routes r JOIN samples s ON s.id = r.sample_id WHERE s.uuid = ?
                        """, arguments: [uuid])
            else {
                throw HKError(.errorNoData, "The workout route \(uuid) has no locations in the store.")
            }
            return try WorkoutRouteCodec.decode([UInt8](blob))
        }
    }
}
