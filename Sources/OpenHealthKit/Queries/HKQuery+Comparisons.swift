import Foundation
import HealthKitModel
import WorkoutEngine

extension HKQuery {
    /// Quantity samples whose quantity compares with `quantity` by `operatorType` (`<`, `<=`, `>`, `>=`, `==`, `!=`).
    ///
    /// The quantity's unit must fit the queried type (a heart rate in count/min or count/s, not in metres): a query
    /// with a unit that does not fit fails with `errorInvalidArgument`. A quantity series sample compares by its
    /// quantity: the sum of its values for a cumulative type, their average for a discrete one. Other operators (LIKE,
    /// BETWEEN, …) fail the query with `errorInvalidArgument`.
    ///
    /// HealthKit: HKQuery.predicateForQuantitySamples(with:quantity:).
    public class func predicateForQuantitySamples(
        with operatorType: _ComparisonOperator, quantity: HKQuantity
    ) -> NSPredicate {
        HKQueryPredicate(.quantity(.init(operatorType), quantity))
    }

    /// Objects whose metadata value for `key` compares with `value` by `operatorType`.
    ///
    /// Values compare by kind, as in ``predicateForObjects(withMetadataKey:allowedValues:)``: strings (in Unicode
    /// code point order), numbers (an integer and the same floating-point number are equal), booleans (`==` and `!=`),
    /// dates; an `HKQuantity` value compares in the unit the object's metadata quantity was stored in. An object whose
    /// value is of another kind, or that lacks the key, does not match. A value of another type (an array, a
    /// dictionary) fails the query with `errorInvalidArgument`.
    ///
    /// HealthKit: HKQuery.predicateForObjects(withMetadataKey:operatorType:value:).
    public class func predicateForObjects(
        withMetadataKey key: String, operatorType: _ComparisonOperator,
        value: Any
    ) -> NSPredicate {
        guard let compared = ObjectFilter.MetadataValue(value) else {
            return HKQueryPredicate(
                .foreign(
                    "metadata \(key) compared with a value that is not a string, number, boolean, date or quantity"))
        }
        return HKQueryPredicate(.filter(.metadataComparison(key, .init(operatorType), compared)))
    }
}
