import Foundation
import HealthKitModel
import WorkoutEngine

/// The sample types only the system writes: apps may read them but never share them. HealthKit: Apple's
/// documentation of `highHeartRateEvent`, `lowHeartRateEvent` and `irregularHeartRhythmEvent` ("read-only. You can
/// request permission to read the samples…, but you can't request authorization to share them"); the others are the
/// watch's own measurements, which HealthKit refuses the same way (asking to share `appleExerciseTime`,
/// `appleStandHour` or `nikeFuel` raises "Authorization to share the following types is disallowed").
///
/// On Linux the system is a client whose identifier is one of Apple's (`com.apple.…`, as Apple's Health app and
/// watch are in an export): an importer of Apple's data may write these types; an app may not. OpenHealthKit.
enum SystemOnlyTypes {
    static let identifiers: Set<String> = [
        HKCategoryTypeIdentifier.highHeartRateEvent.rawValue,
        HKCategoryTypeIdentifier.lowHeartRateEvent.rawValue,
        HKCategoryTypeIdentifier.irregularHeartRhythmEvent.rawValue,
        HKCategoryTypeIdentifier.lowCardioFitnessEvent.rawValue,
        HKCategoryTypeIdentifier.appleStandHour.rawValue,
        HKQuantityTypeIdentifier.appleExerciseTime.rawValue,
        HKQuantityTypeIdentifier.appleStandTime.rawValue,
        HKQuantityTypeIdentifier.walkingHeartRateAverage.rawValue,
        HKQuantityTypeIdentifier.nikeFuel.rawValue,
    ]

    /// Whether a client is the system, which writes these types.
    static func isSystem(_ clientIdentifier: String) -> Bool { clientIdentifier.hasPrefix("com.apple.") }

    /// Whether this client may never share a type.
    static func isReadOnly(_ identifier: String, for clientIdentifier: String) -> Bool {
        identifiers.contains(identifier) && !isSystem(clientIdentifier)
    }

    /// The error HealthKit gives a request to share read-only types (an exception there; an error here, as a bad
    /// argument is throughout OpenHealthKit).
    static func disallowed(_ identifiers: some Sequence<String>) -> HKError {
        HKError(
            .errorInvalidArgument,
            "Authorization to share the following types is disallowed: \(identifiers.sorted().joined(separator: ", ")). "
                + "Only the system writes them; request them for reading only.")
    }

    /// Throws ``disallowed(_:)`` when a request asks to share any read-only type.
    static func checkRequest(share: Set<String>, client: String) throws {
        let refused = share.filter { isReadOnly($0, for: client) }
        if !refused.isEmpty { throw disallowed(refused) }
    }
}
