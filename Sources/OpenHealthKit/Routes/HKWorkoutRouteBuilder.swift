import Foundation
import HealthKitModel
import Synchronization
import WorkoutEngine

/// Builds a workout's route from locations and saves it with the workout. HealthKit: HKWorkoutRouteBuilder.
///
/// ```swift
/// let routeBuilder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
/// try await routeBuilder.insertRouteData(locations)        // as they arrive, in any batch size
/// let route = try await routeBuilder.finishRoute(with: workout, metadata: nil)
/// ```
///
/// Locations may arrive in any order (HealthKit sorts them); the route holds them by time. Errors are
/// `errorInvalidArgument`: a location with an invalid coordinate or a non-finite time, a call after the route was
/// finished or discarded, finishing without locations, or a workout not in the store. The route is saved and
/// associated with the workout in one transaction.
public final class HKWorkoutRouteBuilder: HKSeriesBuilder, @unchecked Sendable {
    private let healthStore: HKHealthStore
    private let device: HKDevice?
    private let state = Mutex(State())

    private struct State {
        var locations: [CLLocation] = []
        var metadata: [String: Any] = [:]
        /// "finished" or "discarded" once the route is.
        var closed: String?
    }

    public init(healthStore: HKHealthStore, device: HKDevice?) {
        self.healthStore = healthStore
        self.device = device
    }

    /// Adds locations to the route.
    public func insertRouteData(_ routeData: [CLLocation]) async throws {
        try withState { state in
            if let closed = state.closed {
                throw HKError(.errorInvalidArgument, "The route was already \(closed).")
            }
            for location in routeData {
                guard CLLocationCoordinate2DIsValid(location.coordinate), location.coordinate.latitude.isFinite,
                    location.coordinate.longitude.isFinite, location.timestamp.timeIntervalSinceReferenceDate.isFinite
                else {
                    throw HKError(
                        .errorInvalidArgument,
                        "A route location needs a valid coordinate, not \(location.coordinate.latitude), \(location.coordinate.longitude)."
                    )
                }
            }
            state.locations.append(contentsOf: routeData)
        }
    }

    public func insertRouteData(_ routeData: [CLLocation], completion: @escaping @Sendable (Bool, (any Error)?) -> Void)
    {
        let box = UncheckedBox(routeData)
        healthStore.report({ try await self.insertRouteData(box.value) }) {
            let (success, error) = $0.healthKitPair
            completion(success, error)
        }
    }

    public func addMetadata(_ metadata: [String: Any]) async throws {
        try MetadataCoding.validate(metadata)
        try withState { state in
            if let closed = state.closed {
                throw HKError(.errorInvalidArgument, "The route was already \(closed).")
            }
            state.metadata.merge(metadata) { $1 }
        }
    }

    public func addMetadata(_ metadata: [String: Any], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let box = UncheckedBox(metadata)
        healthStore.report({ try await self.addMetadata(box.value) }) {
            let (success, error) = $0.healthKitPair
            completion(success, error)
        }
    }

    /// Saves the route and associates it with `workout`, which must be saved already.
    public func finishRoute(with workout: HKWorkout, metadata: [String: Any]?) async throws -> HKWorkoutRoute {
        if let metadata { try MetadataCoding.validate(metadata) }
        let (locations, allMetadata) = try withState { state in
            if let closed = state.closed {
                throw HKError(.errorInvalidArgument, "The route was already \(closed).")
            }
            guard !state.locations.isEmpty else {
                throw HKError(.errorInvalidArgument, "A route needs at least one location.")
            }
            state.closed = "finished"
            return (state.locations, state.metadata.merging(metadata ?? [:]) { $1 })
        }
        let sorted = locations.enumerated().sorted {
            $0.element.timestamp != $1.element.timestamp
                ? $0.element.timestamp < $1.element.timestamp : $0.offset < $1.offset
        }.map(\.element)
        let route = HKWorkoutRoute(
            count: sorted.count, startDate: sorted[0].timestamp, endDate: sorted[sorted.count - 1].timestamp,
            uuid: UUID(), metadata: allMetadata.isEmpty ? nil : allMetadata, device: device,
            sourceRevision: healthStore.sourceRevision, locations: sorted)
        do {
            try await healthStore.associate([route], with: workout)
        } catch {
            withState { $0.closed = nil }
            throw error
        }
        return route
    }

    public func finishRoute(
        with workout: HKWorkout, metadata: [String: Any]?,
        completion: @escaping @Sendable (HKWorkoutRoute?, (any Error)?) -> Void
    ) {
        let box = UncheckedBox((workout, metadata))
        healthStore.report({ try await self.finishRoute(with: box.value.0, metadata: box.value.1) }) { result in
            switch result {
            case .success(let route): completion(route, nil)
            case .failure(let error): completion(nil, error)
            }
        }
    }

    public override func discard() {
        withState { state in
            if state.closed == nil { state.closed = "discarded" }
            state.locations.removeAll()
        }
    }

    /// Runs `body` with the state locked; its result may hold metadata, which is not `Sendable`.
    private func withState<T, E: Error>(_ body: (inout State) throws(E) -> T) throws(E) -> T {
        try state.withLock { (state: inout State) throws(E) -> UncheckedBox<T> in UncheckedBox(try body(&state)) }
            .value
    }
}
