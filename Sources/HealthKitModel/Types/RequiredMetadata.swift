/// The metadata keys HealthKit requires on samples of a few types: `HKMetadataKeyMenstrualCycleStart` on
/// menstrual-flow samples, `HKMetadataKeyInsulinDeliveryReason` on insulin-delivery samples. Saving a sample without
/// its key fails with `errorInvalidArgument` and HealthKit's wording.
package enum RequiredMetadata {
    package static let keys: [String: String] = [
        HKCategoryTypeIdentifier.menstrualFlow.rawValue: HKMetadataKeyMenstrualCycleStart,
        HKQuantityTypeIdentifier.insulinDelivery.rawValue: HKMetadataKeyInsulinDeliveryReason,
    ]

    /// Throws when a sample of `type` lacks the key HealthKit requires of it.
    package static func check(_ type: String, _ metadata: [String: Any]?) throws {
        guard let key = keys[type], metadata?[key] == nil else { return }
        let name =
            key == HKMetadataKeyMenstrualCycleStart
            ? "HKMetadataKeyMenstrualCycleStart" : "HKMetadataKeyInsulinDeliveryReason"
        throw HKError(.errorInvalidArgument, "Type \(type) is missing a required metadata key (required keys: \(name))")
    }
}
