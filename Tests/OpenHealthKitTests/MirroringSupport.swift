import Foundation
import OpenHealthKit

/// A workout-session delegate that records what it is told, in order, as a stream a test reads with a time limit
/// (the suites' `.timeLimit`).
final class MirrorCallRecorder: HKWorkoutSessionDelegate, @unchecked Sendable {
    enum Call: Equatable, Sendable {
        case state(from: HKWorkoutSessionState, to: HKWorkoutSessionState, date: Date)
        case event(HKWorkoutEventType, Date)
        case data([Data])
        /// `didDisconnectFromRemoteDeviceWithError`: whether an error came with it.
        case disconnected(withError: Bool)
        case failed
        case activityBegan(HKWorkoutActivityType, Date)
        case activityEnded(HKWorkoutActivityType, Date)
    }

    let calls: AsyncStream<Call>
    private let sink: AsyncStream<Call>.Continuation
    private let lock = NSLock()
    private var lastError: (any Error)?

    init() { (calls, sink) = AsyncStream.makeStream(of: Call.self) }

    /// The error the last disconnection carried.
    var disconnectionError: (any Error)? { lock.withLock { lastError } }

    func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
        from fromState: HKWorkoutSessionState, date: Date
    ) {
        sink.yield(.state(from: fromState, to: toState, date: date))
    }
    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) { sink.yield(.failed) }
    func workoutSession(_ workoutSession: HKWorkoutSession, didGenerate event: HKWorkoutEvent) {
        sink.yield(.event(event.type, event.dateInterval.start))
    }
    func workoutSession(
        _ workoutSession: HKWorkoutSession, didBeginActivityWith workoutConfiguration: HKWorkoutConfiguration,
        date: Date
    ) {
        sink.yield(.activityBegan(workoutConfiguration.activityType, date))
    }
    func workoutSession(
        _ workoutSession: HKWorkoutSession, didEndActivityWith workoutConfiguration: HKWorkoutConfiguration,
        date: Date
    ) {
        sink.yield(.activityEnded(workoutConfiguration.activityType, date))
    }
    func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
        sink.yield(.data(data))
    }
    func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?)
    {
        lock.withLock { lastError = error }
        sink.yield(.disconnected(withError: error != nil))
    }
}

extension AsyncStream<MirrorCallRecorder.Call>.Iterator {
    /// The data received until `count` items have arrived (deliveries may batch several).
    mutating func data(count: Int) async -> [Data] {
        var received: [Data] = []
        while received.count < count, let call = await next() {
            if case .data(let items) = call { received += items }
        }
        return received
    }
}

/// A wall clock a test moves by hand.
final class HandClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ start: Date) { current = start }
    var now: Date { lock.withLock { current } }
    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}
