import Foundation

/// The abstract type of every object the health store holds.
///
/// Types are compared by identifier: `HKQuantityType(.heartRate) == HKObjectType.quantityType(forIdentifier: .heartRate)`,
/// so they work as dictionary keys (`[HKQuantityType: HKStatistics]`).
///
/// HealthKit: HKObjectType.
open class HKObjectType: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// The type's identifier, e.g. `HKQuantityTypeIdentifierHeartRate`.
    public let identifier: String
    /// Types are dictionary keys on hot paths: hash once.
    private let identifierHash: Int

    package init(identifier: String) {
        self.identifier = identifier
        self.identifierHash = identifier.hashValue
        super.init()
    }

    /// Archives the type by identifier (`NSSecureCoding`).
    public func encode(with coder: NSCoder) { coder.encode(identifier as NSString, forKey: "identifier") }

    public required convenience init?(coder: NSCoder) {
        guard let identifier = SecureCoding.decodeString(coder, "identifier") else {
            SecureCoding.fail(coder, "an HKObjectType")
            return nil
        }
        self.init(identifier: identifier)
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKObjectType else { return false }
        return other === self || other.identifier == identifier
    }

    open override var hash: Int { identifierHash }
    open override var description: String { identifier }
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// The quantity type for an identifier (always non-nil here for known identifiers).
    public class func quantityType(forIdentifier identifier: HKQuantityTypeIdentifier) -> HKQuantityType? {
        QuantityTypeCatalog.entry(for: identifier.rawValue).map { HKQuantityType(entry: $0) }
    }

    /// The characteristic type for an identifier.
    public class func characteristicType(
        forIdentifier identifier: HKCharacteristicTypeIdentifier
    ) -> HKCharacteristicType? {
        HKCharacteristicType(identifier)
    }

    /// The series type for an identifier (`HKDataTypeIdentifierHeartbeatSeries`, `HKWorkoutRouteTypeIdentifier`).
    public class func seriesType(forIdentifier identifier: String) -> HKSeriesType? {
        switch identifier {
        case HKDataTypeIdentifierHeartbeatSeries: HKSeriesType.heartbeat()
        case HKWorkoutRouteTypeIdentifier: HKSeriesType.workoutRoute()
        default: nil
        }
    }

    /// The workout type.
    public class func workoutType() -> HKWorkoutType { HKWorkoutType.shared }
}

/// A type of sample: anything with a start and end date.
///
/// HealthKit: HKSampleType.
open class HKSampleType: HKObjectType, @unchecked Sendable {
    /// Whether samples of this type have a maximum allowed duration.
    public var isMaximumDurationRestricted: Bool { false }
    public var maximumAllowedDuration: TimeInterval { .infinity }
    public var isMinimumDurationRestricted: Bool { false }
    public var minimumAllowedDuration: TimeInterval { 0 }
    public var allowsRecalibrationForEstimates: Bool { false }
}

/// The workout sample type. HealthKit: HKWorkoutType.
public final class HKWorkoutType: HKSampleType, @unchecked Sendable {
    package static let shared = HKWorkoutType(identifier: HKWorkoutTypeIdentifier)
}

/// A series type: heartbeat series and workout routes. HealthKit: HKSeriesType.
public final class HKSeriesType: HKSampleType, @unchecked Sendable {
    private static let heartbeatType = HKSeriesType(identifier: HKDataTypeIdentifierHeartbeatSeries)
    private static let routeType = HKSeriesType(identifier: HKWorkoutRouteTypeIdentifier)
    /// The type of heartbeat series samples (beat-to-beat timings).
    public class func heartbeat() -> HKSeriesType { heartbeatType }
    /// The type of workout route samples.
    public class func workoutRoute() -> HKSeriesType { routeType }
}

/// A characteristic of the person: date of birth, biological sex… HealthKit: HKCharacteristicType.
public final class HKCharacteristicType: HKObjectType, @unchecked Sendable {
    public convenience init(_ identifier: HKCharacteristicTypeIdentifier) {
        self.init(identifier: identifier.rawValue)
    }
}

/// Identifiers of characteristic types (declared in `HealthKitCatalog+Generated.swift`).
/// HealthKit: HKCharacteristicTypeIdentifier.
public struct HKCharacteristicTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Identifiers of correlation types (declared in `HealthKitCatalog+Generated.swift`).
/// HealthKit: HKCorrelationTypeIdentifier.
public struct HKCorrelationTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Identifiers of document types (declared in `HealthKitCatalog+Generated.swift`).
/// HealthKit: HKDocumentTypeIdentifier.
public struct HKDocumentTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Identifiers of scored assessment types (declared in `HealthKitCatalog+Generated.swift`); OpenHealthKit keeps no
/// assessments. HealthKit: HKScoredAssessmentTypeIdentifier.
public struct HKScoredAssessmentTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Identifiers of clinical record types (declared in `HealthKitCatalog+Generated.swift`); OpenHealthKit keeps no
/// clinical records. HealthKit: HKClinicalTypeIdentifier.
public struct HKClinicalTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}
