import Foundation
import HealthKitModel
import Synchronization
import WorkoutEngine

/// The base of series builders. HealthKit: HKSeriesBuilder.
open class HKSeriesBuilder: NSObject, @unchecked Sendable {
    /// Stops building and drops what was added.
    open func discard() {}
}

/// Builds a heartbeat series beat by beat and saves it. HealthKit: HKHeartbeatSeriesBuilder.
///
/// Beats are given as seconds since the series' start, in ascending order; a beat may be marked as preceded by a
/// gap (the recording missed beats before it). Errors are `errorInvalidArgument`: a beat before the start or
/// before the previous beat, more than `maximumCount` beats, or any call after the series was finished or
/// discarded.
public final class HKHeartbeatSeriesBuilder: HKSeriesBuilder, @unchecked Sendable {
    /// The most beats one series may hold.
    public class var maximumCount: Int { 100_000 }

    private let healthStore: HKHealthStore
    private let device: HKDevice?
    private let startDate: Date
    private let state = Mutex(State())

    private struct State {
        var beats: [HeartbeatSeriesCodec.Beat] = []
        var metadata: [String: Any] = [:]
        /// "finished" or "discarded" once the series is.
        var closed: String?
    }

    public init(healthStore: HKHealthStore, device: HKDevice?, start startDate: Date) {
        self.healthStore = healthStore
        self.device = device
        self.startDate = startDate
    }

    /// Adds a beat `timeInterval` seconds after the series' start. HealthKit: HKHeartbeatSeriesBuilder.addHeartbeat(at:precededByGap:)
    /// (the async form of `addHeartbeatWithTimeInterval(sinceSeriesStartDate:precededByGap:completion:)`).
    public func addHeartbeat(at timeInterval: TimeInterval, precededByGap: Bool) async throws {
        try withState { state in
            if let closed = state.closed {
                throw HKError(.errorInvalidArgument, "The heartbeat series was already \(closed).")
            }
            guard timeInterval >= 0, timeInterval.isFinite else {
                throw HKError(.errorInvalidArgument, "A heartbeat cannot come before the series' start.")
            }
            if let last = state.beats.last, timeInterval < last.offset {
                throw HKError(
                    .errorInvalidArgument,
                    "Heartbeats must be added in order: \(timeInterval) s comes before \(last.offset) s.")
            }
            guard state.beats.count < Self.maximumCount else {
                throw HKError(.errorDataSizeExceeded, "A heartbeat series holds at most \(Self.maximumCount) beats.")
            }
            state.beats.append(.init(offset: timeInterval, precededByGap: precededByGap))
        }
    }

    /// OpenHealthKit's former spelling of the async `addHeartbeat(at:precededByGap:)`; kept one release.
    @available(*, deprecated, renamed: "addHeartbeat(at:precededByGap:)")
    public func addHeartbeatWithTimeInterval(
        sinceSeriesStartDate timeInterval: TimeInterval, precededByGap: Bool
    ) async throws {
        try await addHeartbeat(at: timeInterval, precededByGap: precededByGap)
    }

    public func addHeartbeatWithTimeInterval(
        sinceSeriesStartDate timeInterval: TimeInterval, precededByGap: Bool,
        completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        healthStore.report({ try await self.addHeartbeat(at: timeInterval, precededByGap: precededByGap) }) {
            let (success, error) = $0.healthKitPair
            completion(success, error)
        }
    }

    public func addMetadata(_ metadata: [String: Any], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let box = UncheckedBox(metadata)
        healthStore.report({ try await self.addMetadata(box.value) }) {
            let (success, error) = $0.healthKitPair
            completion(success, error)
        }
    }

    public func addMetadata(_ metadata: [String: Any]) async throws {
        try MetadataCoding.validate(metadata)
        try withState { state in
            if let closed = state.closed {
                throw HKError(.errorInvalidArgument, "The heartbeat series was already \(closed).")
            }
            state.metadata.merge(metadata) { $1 }
        }
    }

    /// Saves the series and returns it.
    public func finishSeries() async throws -> HKHeartbeatSeriesSample {
        let (beats, metadata) = try withState { state in
            if let closed = state.closed {
                throw HKError(.errorInvalidArgument, "The heartbeat series was already \(closed).")
            }
            state.closed = "finished"
            return (state.beats, state.metadata)
        }
        let end = startDate.addingTimeInterval(beats.last?.offset ?? 0)
        let sample = HKHeartbeatSeriesSample(
            count: beats.count, startDate: startDate, endDate: end, uuid: UUID(),
            metadata: metadata, device: device, sourceRevision: healthStore.sourceRevision,
            beats: beats)
        do {
            try await healthStore.save(sample)
        } catch {
            withState { $0.closed = nil }
            throw error
        }
        return sample
    }

    public func finishSeries(completion: @escaping @Sendable (HKHeartbeatSeriesSample?, (any Error)?) -> Void) {
        healthStore.report({ try await self.finishSeries() }) { result in
            switch result {
            case .success(let sample): completion(sample, nil)
            case .failure(let error): completion(nil, error)
            }
        }
    }

    public override func discard() {
        withState { state in
            if state.closed == nil { state.closed = "discarded" }
            state.beats.removeAll()
        }
    }

    /// Runs `body` with the state locked; its result may hold metadata, which is not `Sendable`.
    private func withState<T, E: Error>(_ body: (inout State) throws(E) -> T) throws(E) -> T {
        try state.withLock { (state: inout State) throws(E) -> UncheckedBox<T> in UncheckedBox(try body(&state)) }
            .value
    }
}

/// Reads the beats of a heartbeat series, calling the handler once per beat and the last time with `done`.
///
/// HealthKit: HKHeartbeatSeriesQuery.
public final class HKHeartbeatSeriesQuery: HKQuery, @unchecked Sendable {
    public typealias DataHandler = @Sendable (HKHeartbeatSeriesQuery, TimeInterval, Bool, Bool, (any Error)?) -> Void
    private let series: HKHeartbeatSeriesSample
    private let dataHandler: DataHandler

    public init(heartbeatSeries: HKHeartbeatSeriesSample, dataHandler: @escaping DataHandler) {
        self.series = heartbeatSeries
        self.dataHandler = dataHandler
        super.init(
            objectType: HKSeriesType.heartbeat(), predicate: HKQuery.predicateForObject(with: heartbeatSeries.uuid),
            descriptors: [])
    }

    override func run(in store: HKHealthStore) {
        let series = series
        store.complete(
            { try await store.heartbeats(of: series) },
            { [self] result in
                store.finished(self)
                switch result {
                case .success(let beats):
                    if beats.isEmpty { dataHandler(self, 0, false, true, nil) }
                    for (index, beat) in beats.enumerated() {
                        dataHandler(self, beat.offset, beat.precededByGap, index == beats.count - 1, nil)
                    }
                case .failure(let error):
                    dataHandler(self, 0, false, true, error)
                }
            })
    }
}

/// Reads a heartbeat series with `async`/`await`. HealthKit: HKHeartbeatSeriesQueryDescriptor.
public struct HKHeartbeatSeriesQueryDescriptor: HKAsyncSequenceQuery, Sendable {
    /// One beat. HealthKit: HKHeartbeatSeriesQueryDescriptor.Heartbeat.
    public struct Heartbeat: Sendable, Hashable {
        /// Seconds from the series' start to the beat.
        public let timeIntervalSinceStart: TimeInterval
        public let precededByGap: Bool

        /// OpenHealthKit's former spelling of `timeIntervalSinceStart`; kept one release.
        @available(*, deprecated, renamed: "timeIntervalSinceStart")
        public var timeSinceSeriesStart: TimeInterval { timeIntervalSinceStart }
    }

    /// The beats of a heartbeat series query, as an `AsyncSequence`. HealthKit: HKHeartbeatSeriesQueryDescriptor.Results.
    public struct Results: AsyncSequence, Sendable {
        public typealias Element = Heartbeat
        let stream: AsyncThrowingStream<Heartbeat, any Error>

        public func makeAsyncIterator() -> QueryResultsIterator<Heartbeat> {

            QueryResultsIterator(base: stream.makeAsyncIterator())

        }
    }

    public let sample: HKHeartbeatSeriesSample

    public init(_ sample: HKHeartbeatSeriesSample) { self.sample = sample }

    /// The beats, in order.
    public func results(for healthStore: HKHealthStore) -> Results {
        let sample = sample
        return Results(
            stream: QueryResults.reading {
                try await healthStore.heartbeats(of: sample)
            } _: { beat in
                Heartbeat(timeIntervalSinceStart: beat.offset, precededByGap: beat.precededByGap)
            })
    }
}

extension HKHealthStore {
    /// The stored beats of a series this client may read; `errorNoData` when it is not in the store (or not
    /// readable: the privacy rule).
    func heartbeats(of series: HKHeartbeatSeriesSample) async throws -> [HeartbeatSeriesCodec.Beat] {
        let readable = try await fetchSamples(
            [
                HKQueryDescriptor(
                    sampleType: HKSeriesType.heartbeat(), predicate: HKQuery.predicateForObject(with: series.uuid))
            ],
            limit: 1, sorts: [])
        guard readable.first != nil else {
            throw HKError(.errorNoData, "The heartbeat series \(series.uuid) is not in the store.")
        }
        guard let blob = try await backend().heartbeatBeats(of: series.uuid) else {
            throw HKError(.errorNoData, "The heartbeat series \(series.uuid) has no beats in the store.")
        }
        return try HeartbeatSeriesCodec.decode(blob)
    }
}
