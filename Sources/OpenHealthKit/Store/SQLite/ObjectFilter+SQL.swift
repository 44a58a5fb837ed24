import Foundation
import GRDB

/// The SQL of the source, device and metadata predicates (``ObjectFilter``): the SQLite backend's side of them.
extension ObjectFilter {
    func sql() throws -> SQLFragment {
        func list(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ",") }
        switch self {
        case .sources(let bundles):
            guard !bundles.isEmpty else { return SQLFragment("0") }
            return SQLFragment(
                "s.source_id IN (SELECT id FROM sources WHERE bundle_identifier IN (\(list(bundles.count))))", bundles)
        case .sourceRevisions(let revisions):
            guard !revisions.isEmpty else { return SQLFragment("0") }
            var parts: [SQLFragment] = []
            for revision in revisions {
                if let version = revision.version, version != HKSourceRevisionAnyVersion {
                    parts.append(SQLFragment("(bundle_identifier = ? AND version = ?)", [revision.bundle, version]))
                } else if revision.version == HKSourceRevisionAnyVersion {
                    parts.append(SQLFragment("bundle_identifier = ?", [revision.bundle]))
                } else {
                    parts.append(SQLFragment("(bundle_identifier = ? AND version IS NULL)", [revision.bundle]))
                }
            }
            let condition = SQLFragment.joined(parts, with: "OR", empty: "0")
            return SQLFragment("s.source_id IN (SELECT id FROM sources WHERE \(condition.sql))", condition.arguments)
        case .devices(let devices):
            guard !devices.isEmpty else { return SQLFragment("0") }
            let keys = devices.map { $0.map { $0 ?? "\u{0}" }.joined(separator: "\u{1}") }
            return SQLFragment("s.device_id IN (SELECT id FROM devices WHERE key IN (\(list(keys.count))))", keys)
        case let .deviceProperty(key, values):
            guard let column = Self.devicePropertyColumns[key] else {
                throw HKError(.errorInvalidArgument, "'\(key)' is not a device property key (HKDevicePropertyKey…).")
            }
            guard !values.isEmpty else { return SQLFragment("0") }
            return SQLFragment(
                "s.device_id IN (SELECT id FROM devices WHERE \(column) IN (\(list(values.count))))", values)
        case .metadataKey(let key):
            return SQLFragment("json_type(s.metadata, '$.\"' || ? || '\"') IS NOT NULL", [key])
        case let .metadataValues(key, values):
            let parts = values.map { value in
                let (expression, arguments) = value.sql(key)
                return SQLFragment("\(expression) = ?", arguments)
            }
            return SQLFragment.joined(parts, with: "OR", empty: "0")
        case let .metadataComparison(key, comparison, value):
            guard let comparison else {
                throw HKError(.errorInvalidArgument, "HealthKit predicates compare with <, <=, >, >=, == or != only.")
            }
            let (expression, arguments) = value.sql(key)
            return SQLFragment("\(expression) \(comparison.sql) ?", arguments)
        }
    }
}

extension ObjectFilter.MetadataValue {
    /// The SQL expression of the stored value of `key` of this kind, and the argument.
    func sql(_ key: String) -> (expression: String, arguments: [any DatabaseValueConvertible & Sendable]) {
        let path = "'$.\"' || ? || '\"'"
        switch self {
        case .string(let v): return ("json_extract(s.metadata, \(path) || '.s')", [key, v])
        case .bool(let v): return ("json_extract(s.metadata, \(path) || '.b')", [key, v ? 1 : 0])
        case .date(let v): return ("json_extract(s.metadata, \(path) || '.d')", [key, v])
        case .number(let v):
            return (
                "COALESCE(json_extract(s.metadata, \(path) || '.n'), json_extract(s.metadata, \(path) || '.i'), json_extract(s.metadata, \(path) || '.q[0]'))",
                [key, key, key, v]
            )
        }
    }
}

extension PredicateNode.Comparison {
    /// The SQL operator.
    var sql: String {
        switch self {
        case .lessThan: "<"
        case .lessThanOrEqual: "<="
        case .greaterThan: ">"
        case .greaterThanOrEqual: ">="
        case .equal: "="
        case .notEqual: "<>"
        }
    }
}
