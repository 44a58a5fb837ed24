/// Identifiers of quantity types, with HealthKit's raw strings. Every identifier of HealthKit's SDK is declared in
/// `HealthKitCatalog+Generated.swift`, generated from the SDK's headers.
///
/// HealthKit: HKQuantityTypeIdentifier.
public struct HKQuantityTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}
