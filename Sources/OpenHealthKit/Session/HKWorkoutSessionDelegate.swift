import Foundation
import HealthKitModel
import WorkoutEngine

/// Hears about a workout session's state changes, failures, generated events and activities.
///
/// HealthKit declares some of these methods optional; here every method is a requirement with an empty default,
/// so a conforming type implements only what it needs. Calls arrive in order on the session's serial queue.
///
/// HealthKit: HKWorkoutSessionDelegate.
public protocol HKWorkoutSessionDelegate: AnyObject {
    func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
        from fromState: HKWorkoutSessionState, date: Date)
    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error)
    func workoutSession(_ workoutSession: HKWorkoutSession, didGenerate event: HKWorkoutEvent)
    func workoutSession(
        _ workoutSession: HKWorkoutSession, didBeginActivityWith workoutConfiguration: HKWorkoutConfiguration,
        date: Date)
    func workoutSession(
        _ workoutSession: HKWorkoutSession, didEndActivityWith workoutConfiguration: HKWorkoutConfiguration,
        date: Date)
    func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data])
    func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?)
}

extension HKWorkoutSessionDelegate {
    public func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
        from fromState: HKWorkoutSessionState, date: Date
    ) {}
    public func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {}
    public func workoutSession(_ workoutSession: HKWorkoutSession, didGenerate event: HKWorkoutEvent) {}
    public func workoutSession(
        _ workoutSession: HKWorkoutSession,
        didBeginActivityWith workoutConfiguration: HKWorkoutConfiguration, date: Date
    ) {}
    public func workoutSession(
        _ workoutSession: HKWorkoutSession,
        didEndActivityWith workoutConfiguration: HKWorkoutConfiguration, date: Date
    ) {}
    public func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data])
    {}
    public func workoutSession(
        _ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?
    ) {}
}
