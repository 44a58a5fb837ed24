import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

extension StoreDatabase {
    /// The locations of the stored route with this UUID (`workout_routes`, migration v9); `errorNoData` when it
    /// has none.
    ///
    /// Damaged bytes (a count that does not match them or the row's, an invalid coordinate, a time out of order or
    /// outside the route's dates) are `errorDatabaseInaccessible` with one sentence naming the route and the store.
    /// Only this route is unreadable: nothing else is read or changed, and the rest of the store reads as before.
    func routeLocations(uuid: UUID, _ db: Database) throws -> [CLLocation] {
        do {
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT r.count, r.locations, s.start, s."end" FROM workout_routes r
                        JOIN samples s ON s.id = r.sample_id WHERE s.uuid = ?
                        """, arguments: [uuid])
            else {
                throw HKError(.errorNoData, "The workout route \(uuid) has no locations in the store.")
            }
            let (stored, blob, start, end): (Int, Data, Double, Double) = (row[0], row[1], row[2], row[3])
            do {
                let locations = try WorkoutRouteCodec.decode([UInt8](blob))
                guard locations.count == stored else {
                    throw WorkoutRouteCodec.Damage(
                        reason: "its bytes hold \(locations.count) locations where its row says \(stored)")
                }
                // The route's dates are its first and last locations' (a millisecond's leeway for the stored REAL).
                if let first = locations.first?.timestamp.storeValue, let last = locations.last?.timestamp.storeValue,
                    first < start - 0.001 || last > end + 0.001
                {
                    throw WorkoutRouteCodec.Damage(reason: "its locations lie outside its dates")
                }
                return locations
            } catch let damage as WorkoutRouteCodec.Damage {
                throw HKError(
                    .errorDatabaseInaccessible,
                    "The workout route \(uuid) in the health store \(path ?? "in memory") is damaged: \(damage.reason)."
                )
            }
        }
    }
}
