import Foundation

/// A PostgreSQL health store's address: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…][&person=ROLE]`
/// (`postgresql://` too). `person` names whose store to open when it is not USER's own: one another person shared
/// with USER, read-only. The password is kept out of ``description``, which is what messages name.
struct PostgresStoreURL: Sendable, Equatable, CustomStringConvertible {
    enum SSLMode: String, Sendable { case disable, prefer, require }

    var user: String
    var password: String?
    var host: String
    var port: Int
    var database: String
    var sslMode: SSLMode
    /// The person whose store is opened, when it is another's (shared with ``user``, read-only); nil for the user's own.
    var person: String?

    /// Whether a store name is a PostgreSQL URL rather than a file path.
    static func isURL(_ name: String) -> Bool {
        name.hasPrefix("postgres://") || name.hasPrefix("postgresql://")
    }

    /// Parses a URL; throws `errorDatabaseInaccessible` with one sentence naming what is wrong (never the password).
    init(_ text: String) throws {
        func invalid(_ reason: String) -> HKError {
            HKError(
                .errorDatabaseInaccessible,
                "The PostgreSQL store URL is not valid: \(reason) (expected postgres://USER[:PASSWORD]@HOST:PORT/DATABASE)."
            )
        }
        guard Self.isURL(text), let components = URLComponents(string: text) else {
            throw invalid("it cannot be read as a URL")
        }
        guard let user = components.user, !user.isEmpty else { throw invalid("it names no user") }
        guard let host = components.host, !host.isEmpty else { throw invalid("it names no host") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw invalid("it names no database") }
        if let port = components.port, !(1 ... 65535).contains(port) { throw invalid("the port is out of range") }
        var sslMode = SSLMode.prefer
        var person: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = item.value.flatMap(SSLMode.init(rawValue:)) else {
                    throw invalid("sslmode must be disable, prefer or require")
                }
                sslMode = mode
            case "person":
                guard let role = item.value, !role.isEmpty else { throw invalid("person names no role") }
                person = role == user ? nil : role
            default:
                throw invalid("'\(item.name)' is not a setting it knows (only sslmode and person)")
            }
        }
        self.user = user
        self.password = components.password
        self.host = host
        self.port = components.port ?? 5432
        self.database = database
        self.sslMode = sslMode
        self.person = person
    }

    /// `postgres://user@host:port/database[?person=…]`: where the store is, without the password.
    var description: String {
        "postgres://\(user)@\(host):\(port)/\(database)" + (person.map { "?person=\($0)" } ?? "")
    }
}
