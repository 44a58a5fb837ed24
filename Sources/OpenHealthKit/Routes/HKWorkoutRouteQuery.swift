import Foundation
import HealthKitModel
import WorkoutEngine

/// Reads a route's locations, in time order, in batches: the handler is called once per batch of at most
/// ``batchSize`` locations and the last time with `done` true (once, with an empty batch, for an empty result).
///
/// HealthKit: HKWorkoutRouteQuery. With a `dateInterval`, only the locations whose timestamps lie inside it
/// (bounds included) are delivered. Errors (a route not in the store, or not readable) arrive once with
/// `done` true and nil locations.
public final class HKWorkoutRouteQuery: HKQuery, @unchecked Sendable {
    public typealias DataHandler = @Sendable (HKWorkoutRouteQuery, [CLLocation]?, Bool, (any Error)?) -> Void
    /// The most locations one call of the handler carries (HealthKit batches too; its size is not documented).
    public static let batchSize = 1_000
    private let route: HKWorkoutRoute
    private let dateInterval: DateInterval?
    private let dataHandler: DataHandler

    public init(route workoutRoute: HKWorkoutRoute, dataHandler: @escaping DataHandler) {
        self.route = workoutRoute
        self.dateInterval = nil
        self.dataHandler = dataHandler
        super.init(
            objectType: HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObject(with: workoutRoute.uuid),
            descriptors: [])
    }

    public init(route workoutRoute: HKWorkoutRoute, dateInterval: DateInterval, dataHandler: @escaping DataHandler) {
        self.route = workoutRoute
        self.dateInterval = dateInterval
        self.dataHandler = dataHandler
        super.init(
            objectType: HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObject(with: workoutRoute.uuid),
            descriptors: [])
    }

    override func run(in store: HKHealthStore) {
        let (route, interval) = (route, dateInterval)
        store.complete(
            { try await store.routeLocations(of: route, within: interval) },
            { [self] result in
                store.finished(self)
                switch result {
                case .success(let locations):
                    if locations.isEmpty { dataHandler(self, [], true, nil) }
                    var start = 0
                    while start < locations.count {
                        let end = min(start + Self.batchSize, locations.count)
                        dataHandler(self, Array(locations[start ..< end]), end == locations.count, nil)
                        start = end
                    }
                case .failure(let error):
                    dataHandler(self, nil, true, error)
                }
            })
    }
}

/// Reads a route's locations with `async`/`await`. HealthKit: HKWorkoutRouteQueryDescriptor.
public struct HKWorkoutRouteQueryDescriptor: Sendable {
    public let workoutRoute: HKWorkoutRoute
    public let dateInterval: DateInterval?

    public init(_ workoutRoute: HKWorkoutRoute) {
        self.workoutRoute = workoutRoute
        dateInterval = nil
    }

    public init(_ workoutRoute: HKWorkoutRoute, dateInterval: DateInterval) {
        self.workoutRoute = workoutRoute
        self.dateInterval = dateInterval
    }

    /// The locations, in time order.
    public func results(for healthStore: HKHealthStore) -> Results {
        let (route, interval) = (workoutRoute, dateInterval)
        return Results(
            stream: QueryResults.reading {
                try await healthStore.routeLocations(of: route, within: interval)
            } _: {
                $0
            })
    }

    /// The locations of a route query, as an `AsyncSequence`. HealthKit: HKWorkoutRouteQueryDescriptor.Results.
    public struct Results: AsyncSequence, Sendable {
        public typealias Element = CLLocation
        let stream: AsyncThrowingStream<CLLocation, any Error>

        public func makeAsyncIterator() -> QueryResultsIterator<CLLocation> {

            QueryResultsIterator(base: stream.makeAsyncIterator())

        }
    }
}

extension HKHealthStore {
    /// The stored locations of a route this client may read; `errorNoData` when it is not in the store (or not
    /// readable: the privacy rule).
    func routeLocations(of route: HKWorkoutRoute, within interval: DateInterval?) async throws -> [CLLocation] {
        let readable = try await fetchSamples(
            [
                HKQueryDescriptor(
                    sampleType: HKSeriesType.workoutRoute(),
                    predicate: HKQuery.predicateForObject(with: route.uuid))
            ],
            limit: 1, sorts: [])
        guard readable.first != nil else {
            throw HKError(.errorNoData, "The workout route \(route.uuid) is not in the store.")
        }
        let locations = try await backend().routeLocations(of: route.uuid)
        guard let interval else { return locations }
        return locations.filter { interval.start <= $0.timestamp && $0.timestamp <= interval.end }
    }
}
