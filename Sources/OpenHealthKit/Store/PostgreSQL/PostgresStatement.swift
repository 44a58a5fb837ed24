import Foundation
import PostgresNIO

/// A value bound to a PostgreSQL statement.
enum PostgresValue: Sendable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case uuid(UUID)
    case bytes([UInt8])
    case boolean(Bool)
    case reals([Double])
    case integers([Int64])
    case texts([String])
    case booleans([Bool])
    case uuids([UUID])
    case null

    /// UUIDs as one `uuid[]` parameter, bound as the array itself. (Bound as text and cast in the statement, the
    /// cast was not folded: PostgreSQL parsed the whole array again for every row it compared, and no index on
    /// `uuid` served the lookup, so a save's lookup of 1,000 UUIDs took 0.7 s among 3,000 samples.)
    static func uuidArray(_ uuids: some Sequence<UUID>) -> PostgresValue {
        .uuids(Array(uuids))
    }

    init(_ value: Int64?) { self = value.map(Self.integer) ?? .null }
    init(_ value: Double?) { self = value.map(Self.real) ?? .null }
    init(_ value: String?) { self = value.map(Self.text) ?? .null }
}

/// SQL with `?` placeholders (as the SQLite backend and ``DateRangeRule`` write it) and the values bound to them.
struct PostgresStatement: Sendable {
    var sql: String
    var values: [PostgresValue]

    init(_ sql: String, _ values: [PostgresValue] = []) {
        self.sql = sql
        self.values = values
    }

    static func joined(_ parts: [PostgresStatement], with separator: String, empty: String) -> PostgresStatement {
        guard !parts.isEmpty else { return PostgresStatement(empty) }
        return PostgresStatement(
            "(" + parts.map(\.sql).joined(separator: " \(separator) ") + ")", parts.flatMap(\.values))
    }

    /// The statement as PostgresNIO sends it: each `?` outside quotes numbered `$1, $2, …` in order.
    var query: PostgresQuery {
        var text = ""
        var number = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                text.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                text.append(character)
            } else if character == "?" {
                number += 1
                text += "$\(number)"
            } else {
                text.append(character)
            }
        }
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .integer(let v): bindings.append(v)
            case .real(let v): bindings.append(v)
            case .text(let v): bindings.append(v)
            case .uuid(let v): bindings.append(v)
            case .bytes(let v): bindings.append(ByteBuffer(bytes: v))
            case .boolean(let v): bindings.append(v)
            case .reals(let v): bindings.append(v)
            case .integers(let v): bindings.append(v)
            case .texts(let v): bindings.append(v)
            case .booleans(let v): bindings.append(v)
            case .uuids(let v): bindings.append(v)
            case .null: bindings.appendNull()
            }
        }
        return PostgresQuery(unsafeSQL: text, binds: bindings)
    }
}

extension PostgresConnection {
    /// Runs a statement and returns its rows, each as random-access cells.
    @discardableResult
    func rows(_ sql: String, _ values: [PostgresValue] = []) async throws -> [PostgresRandomAccessRow] {
        try await rows(PostgresStatement(sql, values))
    }

    @discardableResult
    func rows(_ statement: PostgresStatement) async throws -> [PostgresRandomAccessRow] {
        var result: [PostgresRandomAccessRow] = []
        for try await row in try await query(statement.query, logger: PostgresStoreBackend.logger) {
            result.append(row.makeRandomAccess())
        }
        return result
    }
}

extension PostgresRandomAccessRow {
    /// The cell at `index` decoded as `T` (nil for NULL when `T` is optional).
    func at<T: PostgresDecodable>(_ index: Int, as type: T.Type = T.self) throws -> T {
        try self[index].decode(T.self)
    }

    /// The bytes of a `bytea` cell.
    func bytes(_ index: Int) throws -> [UInt8]? {
        try self[index].decode(ByteBuffer?.self).map { Array($0.readableBytesView) }
    }
}
