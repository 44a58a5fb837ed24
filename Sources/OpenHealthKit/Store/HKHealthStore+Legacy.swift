import Foundation
import HealthKitModel
import WorkoutEngine

// HealthKit's store methods that are deprecated, platform-bound or new, answered as far as Linux allows.

extension HKHealthStore {
    /// Associates saved samples with a saved workout: the async form of `add(_:to:completion:)`.
    /// HealthKit: HKHealthStore.addSamples(_:to:) (deprecated in its 17 SDKs for HKWorkoutBuilder).
    @available(*, deprecated, message: "Use HKWorkoutBuilder")
    public func addSamples(_ samples: [HKSample], to workout: HKWorkout) async throws {
        try await associate(samples, with: workout)
    }

    /// Starts a session: `workoutSession.startActivity(with:)` now. HealthKit: HKHealthStore.start(_:) (watchOS,
    /// deprecated in watchOS 5).
    @available(*, deprecated, message: "Use HKWorkoutSession.startActivity(with:)")
    public func start(_ workoutSession: HKWorkoutSession) {
        workoutSession.startActivity(with: wallClock())
    }

    /// Ends a session: `workoutSession.end()`. HealthKit: HKHealthStore.end(_:) (watchOS, deprecated in watchOS 5).
    @available(*, deprecated, message: "Use HKWorkoutSession.end()")
    public func end(_ workoutSession: HKWorkoutSession) {
        workoutSession.end()
    }

    /// Pauses a session: `workoutSession.pause()`. HealthKit: HKHealthStore.pause(_:) (watchOS, deprecated in watchOS 5).
    @available(*, deprecated, message: "Use HKWorkoutSession.pause()")
    public func pause(_ workoutSession: HKWorkoutSession) {
        workoutSession.pause()
    }

    /// Resumes a session: `workoutSession.resume()`. HealthKit: HKHealthStore.resumeWorkoutSession(_:) (watchOS,
    /// deprecated in watchOS 5).
    @available(*, deprecated, message: "Use HKWorkoutSession.resume()")
    public func resumeWorkoutSession(_ workoutSession: HKWorkoutSession) {
        workoutSession.resume()
    }

    /// Recalibrates the estimates of a sample type from a date (after a change the estimates depend on). Fails with
    /// `errorInvalidArgument`: no type here allows recalibration (`allowsRecalibrationForEstimates` is false, as
    /// HealthKit has it for every type but its own estimated ones).
    /// HealthKit: HKHealthStore.recalibrateEstimates(sampleType:date:).
    public func recalibrateEstimates(sampleType: HKSampleType, date: Date) async throws {
        guard sampleType.allowsRecalibrationForEstimates else {
            throw HKError(.errorInvalidArgument, "\(sampleType.identifier) estimates cannot be recalibrated.")
        }
    }

    public func recalibrateEstimates(
        sampleType: HKSampleType, date: Date,
        completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        report({ try await self.recalibrateEstimates(sampleType: sampleType, date: date) }) { result in
            let (success, error) = result.healthKitPair
            completion(success, error)
        }
    }

    /// The earliest date of samples of a type this client may read: `Date.distantPast`, this store putting no limit
    /// on the history a client reads. HealthKit: HKHealthStore.earliestAuthorizedSampleDate(for:) (iOS 27).
    public func earliestAuthorizedSampleDate(for sampleType: HKSampleType) async throws -> Date {
        .distantPast
    }

    public func getEarliestAuthorizedSampleDate(
        for sampleType: HKSampleType,
        completion: @escaping @Sendable (Date?, (any Error)?) -> Void
    ) {
        report({ try await self.earliestAuthorizedSampleDate(for: sampleType) }) { result in
            switch result {
            case .success(let date): completion(date, nil)
            case .failure(let error): completion(nil, error)
            }
        }
    }
}

extension NSNotification.Name {
    /// Posted when the person changes preferred units. Never posted here: units follow the locale and there are no
    /// Health app settings to change. HealthKit: HKUserPreferencesDidChangeNotification.
    public static let HKUserPreferencesDidChange = NSNotification.Name("HKUserPreferencesDidChangeNotification")
}

extension HKQuery {
    /// Samples that no correlation holds (a correlation itself is held by none).
    /// HealthKit: HKQuery.predicateForObjectsWithNoCorrelation().
    public class func predicateForObjectsWithNoCorrelation() -> NSPredicate {
        HKQueryPredicate(.noCorrelation)
    }
}
