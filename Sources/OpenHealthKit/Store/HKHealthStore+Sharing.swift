import Foundation

/// One share of a PostgreSQL health store: a person's whole store, read-only, for another role of the server (a
/// coach, a teammate). OpenHealthKit.
///
/// The reader opens it with the person in the store's URL, `postgres://READER@HOST/DATABASE?person=OWNER`: every
/// query reads the owner's samples and workouts, and every save or deletion throws `errorAuthorizationDenied`.
public struct StoreShare: Sendable, Hashable {
    /// The role whose store is shared.
    public var owner: String
    /// The role that may read it.
    public var reader: String
    /// When it was shared.
    public var date: Date

    public init(owner: String, reader: String, date: Date) {
        self.owner = owner
        self.reader = reader
        self.date = date
    }
}

extension HKHealthStore {
    /// Shares this person's whole store, read-only, with the role `reader` of the PostgreSQL server; sharing with a
    /// reader again keeps the first share. Nothing is shared by default. Throws `errorInvalidArgument` for a SQLite
    /// store (one person's file) or a role the server does not know, and `errorAuthorizationDenied` in a store
    /// opened as a reader. OpenHealthKit.
    public func shareStore(withReader reader: String) async throws {
        try await backend().shareStore(with: reader, at: Date())
    }

    /// Ends the share with `reader`: their next query of this store reads nothing, and their next open of it fails.
    /// Returns whether there was one. OpenHealthKit.
    public func stopSharingStore(withReader reader: String) async throws -> Bool {
        try await backend().stopSharingStore(with: reader)
    }

    /// The shares of this store's user, oldest first: the ones they made (``StoreShare/owner`` is them) and the
    /// ones made with them (``StoreShare/reader`` is them). Empty for a SQLite store. OpenHealthKit.
    public func storeShares() async throws -> [StoreShare] {
        try await backend().storeShares()
    }
}
