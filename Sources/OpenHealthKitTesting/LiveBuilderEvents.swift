import Foundation
import OpenHealthKit

/// A live builder's delegate calls as an async sequence, to await in a test: it makes itself the builder's delegate
/// (a weak reference, as HealthKit's is: keep it in a variable), and you iterate it or ask for the first call that
/// matches.
///
/// ```swift
/// let events = LiveBuilderEvents(builder)
/// let zone = try await events.first(within: .seconds(5)) { if case .zone = $0 { true } else { false } }
/// ```
///
/// Calls arrive in the order the builder makes them, on its delegate queue. OpenHealthKitTesting.
public final class LiveBuilderEvents: HKLiveWorkoutBuilderDelegate, AsyncSequence, Sendable {
    public enum Event: Sendable {
        case collected(Set<HKSampleType>)
        case event
        case began(HKWorkoutActivity)
        case ended(HKWorkoutActivity)
        case zone(HKLiveWorkoutZoneUpdate)
    }

    public typealias Element = Event
    private let stream: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation

    /// Becomes `builder`'s delegate.
    public init(_ builder: HKLiveWorkoutBuilder) {
        (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
        builder.delegate = self
    }

    public func makeAsyncIterator() -> AsyncStream<Event>.Iterator { stream.makeAsyncIterator() }

    /// The first call, from now on, that `matches`; throws ``TimedOut`` when none comes within `limit` of real time
    /// (a missing call fails the test instead of hanging it).
    public func first(
        within limit: Duration = .seconds(10),
        where matches: @escaping @Sendable (Event) -> Bool
    ) async throws -> Event {
        let stream = self.stream
        return try await withThrowingTaskGroup(of: Event?.self) { group in
            group.addTask {
                for await event in stream where matches(event) { return event }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: limit)
                throw TimedOut(limit: limit)
            }
            defer { group.cancelAll() }
            guard let event = try await group.next() ?? nil else { throw TimedOut(limit: limit) }
            return event
        }
    }

    /// No matching call came in time.
    public struct TimedOut: Error, CustomStringConvertible {
        public let limit: Duration
        public var description: String { "No matching delegate call within \(limit)." }
    }

    public func workoutBuilder(
        _ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>
    ) {
        continuation.yield(.collected(collectedTypes))
    }

    public func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {
        continuation.yield(.event)
    }

    public func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didBegin workoutActivity: HKWorkoutActivity) {
        continuation.yield(.began(workoutActivity))
    }

    public func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didEnd workoutActivity: HKWorkoutActivity) {
        continuation.yield(.ended(workoutActivity))
    }

    public func workoutBuilder(
        _ workoutBuilder: HKLiveWorkoutBuilder, didUpdateWorkoutZone zoneUpdate: HKLiveWorkoutZoneUpdate
    ) {
        continuation.yield(.zone(zoneUpdate))
    }
}
