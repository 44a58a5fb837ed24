import Foundation

/// A type of category sample: a value from a small set over a span of time (a stand hour, a night's sleep stages, a
/// heart-rate notification). Category samples are counted and listed, never summed: there are no statistics of them.
///
/// Created with `HKCategoryType(.sleepAnalysis)` or `HKObjectType.categoryType(forIdentifier: .sleepAnalysis)`;
/// both give equal objects.
///
/// HealthKit: HKCategoryType.
public final class HKCategoryType: HKSampleType, @unchecked Sendable {
    /// The type for an identifier.
    public convenience init(_ identifier: HKCategoryTypeIdentifier) {
        self.init(identifier: identifier.rawValue)
    }

    /// The identifier as an `HKCategoryTypeIdentifier`.
    package var categoryTypeIdentifier: HKCategoryTypeIdentifier { HKCategoryTypeIdentifier(rawValue: identifier) }

    /// The values a sample of this type may hold (HealthKit raises on others; saving one fails here).
    package var validValues: Set<Int>? {
        CategoryTypeCatalog.values[identifier]
    }

    /// The type for a stored identifier, when it is a category type this version knows.
    package static func known(_ identifier: String) -> HKCategoryType? {
        CategoryTypeCatalog.values[identifier] == nil ? nil : HKCategoryType(identifier: identifier)
    }
}

extension HKObjectType {
    /// The category type for an identifier; nil for one this version does not know.
    /// HealthKit: HKObjectType.categoryType(forIdentifier:).
    public class func categoryType(forIdentifier identifier: HKCategoryTypeIdentifier) -> HKCategoryType? {
        HKCategoryType.known(identifier.rawValue)
    }

    /// Whether reading samples of this type needs the person's permission object by object (HealthKit asks so for
    /// vision prescriptions only). False for every type OpenHealthKit knows.
    /// HealthKit: HKObjectType.requiresPerObjectAuthorization().
    public func requiresPerObjectAuthorization() -> Bool { false }
}

/// Identifiers of category types, with HealthKit's raw strings. Every identifier of HealthKit's SDK is declared in
/// `HealthKitCatalog+Generated.swift`, generated from the SDK's headers.
/// HealthKit: HKCategoryTypeIdentifier.
public struct HKCategoryTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// The category types this version stores, with the values their samples may hold: the raw values of the
/// enumeration HealthKit's header names for each type (`GeneratedCatalog.categoryValues`).
package enum CategoryTypeCatalog {
    package static let values: [String: Set<Int>] = GeneratedCatalog.categoryValues
}

extension HKCategoryValueSleepAnalysis {
    /// Every value that means asleep. HealthKit: HKCategoryValueSleepAnalysis.allAsleepValues.
    public static var allAsleepValues: Set<HKCategoryValueSleepAnalysis> {
        [.asleepUnspecified, .asleepCore, .asleepDeep, .asleepREM]
    }
}
