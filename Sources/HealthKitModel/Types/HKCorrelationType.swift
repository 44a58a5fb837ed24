import Foundation

/// A type of correlation: a sample that groups other samples (a blood-pressure reading's systolic and diastolic
/// values, a food's nutrients).
///
/// Created with `HKCorrelationType(.bloodPressure)` or `HKObjectType.correlationType(forIdentifier: .food)`; both
/// give equal objects, usable in authorization sets.
///
/// HealthKit: HKCorrelationType.
public final class HKCorrelationType: HKSampleType, @unchecked Sendable {
    /// The type for an identifier.
    public convenience init(_ identifier: HKCorrelationTypeIdentifier) {
        self.init(identifier: identifier.rawValue)
    }

    /// Whether a correlation of this type may hold a sample of `type`: systolic and diastolic blood pressure in a
    /// blood-pressure correlation, dietary quantity types in a food correlation (HealthKit's rule; it documents
    /// the pairs in HKCorrelation's overview).
    package func mayHold(_ type: HKSampleType) -> Bool {
        type is HKQuantityType && Self.mayHold(type.identifier, in: identifier)
    }

    /// Whether a correlation of type `correlation` may hold samples of the quantity type `identifier` (the rule of
    /// ``mayHold(_:)`` by identifiers, for what a reader of correlations may read).
    package static func mayHold(_ identifier: String, in correlation: String) -> Bool {
        switch correlation {
        case HKCorrelationTypeIdentifier.bloodPressure.rawValue:
            identifier == HKQuantityTypeIdentifier.bloodPressureSystolic.rawValue
                || identifier == HKQuantityTypeIdentifier.bloodPressureDiastolic.rawValue
        case HKCorrelationTypeIdentifier.food.rawValue:
            identifier.hasPrefix("HKQuantityTypeIdentifierDietary")
        default:
            false
        }
    }

    /// The correlation types HealthKit defines.
    package static let known: Set<String> = [
        HKCorrelationTypeIdentifier.bloodPressure.rawValue, HKCorrelationTypeIdentifier.food.rawValue,
    ]
}

extension HKObjectType {
    /// The correlation type for an identifier; nil for one HealthKit does not define.
    /// HealthKit: HKObjectType.correlationType(forIdentifier:).
    public class func correlationType(forIdentifier identifier: HKCorrelationTypeIdentifier) -> HKCorrelationType? {
        HKCorrelationType.known.contains(identifier.rawValue) ? HKCorrelationType(identifier) : nil
    }
}
