import Foundation
import HealthKitModel
import WorkoutEngine

/// Predicates on who saved an object and what it carries: its source, source revision, device and metadata. Each
/// runs in the store (the SQLite backend's `sql()`, in `Store/SQLite/ObjectFilter+SQL.swift`) and in memory
/// (``matches(_:)``) with the same meaning.
///
/// - Sources match by bundle identifier (the client identifier here).
/// - Source revisions match by bundle identifier and version; `HKSourceRevisionAnyVersion` matches any version
///   (product type and operating system are not compared).
/// - Devices match when every property is equal (as the store keys devices).
/// - Metadata values match by type and value: strings, numbers (an integer equals the same floating-point number),
///   booleans and dates; a quantity value compares in the unit it was stored in, so compare quantities with a value
///   in that unit.
enum ObjectFilter: Sendable {
    case sources([String])
    case sourceRevisions([(bundle: String, version: String?)])
    case devices([[String?]])
    /// A device property (column name) among allowed values.
    case deviceProperty(String, [String])
    case metadataKey(String)
    case metadataValues(String, [MetadataValue])
    case metadataComparison(String, PredicateNode.Comparison?, MetadataValue)

    /// A metadata value as the store keeps it: its tag in the stored JSON (see `MetadataCoding`) and its value.
    enum MetadataValue: Sendable {
        case string(String)
        case number(Double)
        case bool(Bool)
        case date(Double)

        init?(_ value: Any) {
            switch value {
            case let v as String: self = .string(v)
            case let v as Bool: self = .bool(v)
            case let v as Date: self = .date(v.timeIntervalSinceReferenceDate)
            case let v as Int: self = .number(Double(v))
            case let v as Double: self = .number(v)
            case let v as NSNumber: self = .number(v.doubleValue)
            case let v as HKQuantity: self = .number(v.doubleValue(for: v.unit))
            default: return nil
            }
        }

        func compare(_ stored: Any?, _ comparison: PredicateNode.Comparison) -> Bool {
            switch (self, stored) {
            case let (.string(wanted), stored as String):
                return comparison.holds(stored < wanted ? -1 : stored > wanted ? 1 : 0, 0)
            case let (.bool(wanted), stored as Bool): return comparison.holds(stored ? 1 : 0, wanted ? 1 : 0)
            case let (.date(wanted), stored as Date):
                return comparison.holds(stored.timeIntervalSinceReferenceDate, wanted)
            case let (.number(wanted), stored as Bool):
                _ = stored
                _ = wanted
                return false
            case let (.number(wanted), stored as NSNumber): return comparison.holds(stored.doubleValue, wanted)
            case let (.number(wanted), stored as HKQuantity):
                return comparison.holds(stored.doubleValue(for: stored.unit), wanted)
            default: return false
            }
        }
    }

    static let deviceColumns = [
        "name", "manufacturer", "model", "hardware_version", "firmware_version",
        "software_version", "local_identifier", "udi_device_identifier",
    ]
    /// HealthKit's device property keys and their columns.
    static let devicePropertyColumns: [String: String] = [
        HKDevicePropertyKeyName: "name", HKDevicePropertyKeyManufacturer: "manufacturer",
        HKDevicePropertyKeyModel: "model",
        HKDevicePropertyKeyHardwareVersion: "hardware_version", HKDevicePropertyKeyFirmwareVersion: "firmware_version",
        HKDevicePropertyKeySoftwareVersion: "software_version", HKDevicePropertyKeyLocalIdentifier: "local_identifier",
        HKDevicePropertyKeyUDIDeviceIdentifier: "udi_device_identifier",
    ]

    func matches(_ object: Any?) -> Bool {
        guard let object = object as? HKObject else { return false }
        switch self {
        case .sources(let bundles):
            return bundles.contains(object.sourceRevision.source.bundleIdentifier)
        case .sourceRevisions(let revisions):
            return revisions.contains { revision in
                revision.bundle == object.sourceRevision.source.bundleIdentifier
                    && (revision.version == HKSourceRevisionAnyVersion
                        || revision.version == object.sourceRevision.version)
            }
        case .devices(let devices):
            guard let device = object.device else { return false }
            return devices.contains { $0 == device.fields }
        case let .deviceProperty(key, values):
            guard let device = object.device, let column = Self.devicePropertyColumns[key],
                let index = Self.deviceColumns.firstIndex(of: column), let value = device.fields[index]
            else { return false }
            return values.contains(value)
        case .metadataKey(let key):
            return object.metadata?[key] != nil
        case let .metadataValues(key, values):
            let stored = object.metadata?[key]
            return values.contains { $0.compare(stored, .equal) }
        case let .metadataComparison(key, comparison, value):
            guard let comparison else { return false }
            return value.compare(object.metadata?[key], comparison)
        }
    }
}

extension HKQuery {
    /// Objects saved by a source (an app or program). HealthKit: HKQuery.predicateForObjects(from:) (HKSource).
    public class func predicateForObjects(from source: HKSource) -> NSPredicate {
        HKQueryPredicate(.filter(.sources([source.bundleIdentifier])))
    }

    /// Objects saved by any of the sources. HealthKit: HKQuery.predicateForObjects(from:) (Set<HKSource>).
    public class func predicateForObjects(from sources: Set<HKSource>) -> NSPredicate {
        HKQueryPredicate(.filter(.sources(sources.map(\.bundleIdentifier).sorted())))
    }

    /// Objects saved by any of the source revisions (bundle identifier and version; `HKSourceRevisionAnyVersion`
    /// for any). HealthKit: HKQuery.predicateForObjects(from:) (Set<HKSourceRevision>).
    public class func predicateForObjects(from sourceRevisions: Set<HKSourceRevision>) -> NSPredicate {
        HKQueryPredicate(.filter(.sourceRevisions(sourceRevisions.map { ($0.source.bundleIdentifier, $0.version) })))
    }

    /// Objects from any of the devices. HealthKit: HKQuery.predicateForObjects(from:) (Set<HKDevice>).
    public class func predicateForObjects(from devices: Set<HKDevice>) -> NSPredicate {
        HKQueryPredicate(.filter(.devices(devices.map(\.fields))))
    }

    /// Objects from devices whose property (an `HKDevicePropertyKey…`) is one of the values.
    /// HealthKit: HKQuery.predicateForObjects(withDeviceProperty:allowedValues:).
    public class func predicateForObjects(withDeviceProperty key: String, allowedValues: Set<String>) -> NSPredicate {
        HKQueryPredicate(.filter(.deviceProperty(key, allowedValues.sorted())))
    }

    /// Objects whose metadata has the key. HealthKit: HKQuery.predicateForObjects(withMetadataKey:).
    public class func predicateForObjects(withMetadataKey key: String) -> NSPredicate {
        HKQueryPredicate(.filter(.metadataKey(key)))
    }

    /// Objects whose metadata value for the key is one of the values (strings, numbers, booleans, dates).
    /// HealthKit: HKQuery.predicateForObjects(withMetadataKey:allowedValues:).
    public class func predicateForObjects(withMetadataKey key: String, allowedValues: [Any]) -> NSPredicate {
        let values = allowedValues.compactMap(ObjectFilter.MetadataValue.init)
        return HKQueryPredicate(
            values.count == allowedValues.count
                ? .filter(.metadataValues(key, values))
                : .foreign("metadata \(key) among values that are not strings, numbers, booleans or dates"))
    }
}
