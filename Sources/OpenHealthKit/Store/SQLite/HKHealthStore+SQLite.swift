import Foundation

extension HKHealthStore {
    /// The SQLite backend of this store: for tests and tools that look at its rows (nothing above the seam calls it).
    func database() throws -> StoreDatabase {
        guard let database = try backend() as? StoreDatabase else {
            throw HKError(.errorDatabaseInaccessible, "This health store is not an SQLite store.")
        }
        return database
    }
}
