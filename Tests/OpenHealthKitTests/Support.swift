import Foundation
import OpenHealthKit
import Testing

/// A store (a fresh in-memory one, or the file at `databasePath`) whose client has been granted every type it uses.
func authorizedStore(client: String = "tests", databasePath: String? = nil) async throws -> HKHealthStore {
    // Opened asynchronously: a PostgreSQL store's synchronous open would block a cooperative thread on the server.
    let store =
        if let databasePath {
            try await HKHealthStore.open(databasePath: databasePath, clientIdentifier: client)
        } else {
            HKHealthStore.inMemory(clientIdentifier: client)
        }
    try await store.requestAuthorization(toShare: allTypes, read: Set(allTypes.map { $0 as HKObjectType }))
    return store
}

let allTypes: Set<HKSampleType> = [
    HKObjectType.workoutType(),
    HKQuantityType(.heartRate), HKQuantityType(.activeEnergyBurned), HKQuantityType(.distanceWalkingRunning),
    HKQuantityType(.distanceCycling), HKQuantityType(.cyclingPower), HKQuantityType(.stepCount),
]

/// A temporary directory removed when the test ends.
struct TemporaryDirectory: ~Copyable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "ohk-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
}

/// Runs a sample query and returns its results.
func fetch(
    _ store: HKHealthStore, _ type: HKSampleType, _ predicate: NSPredicate?, limit: Int = HKObjectQueryNoLimit,
    sort: [NSSortDescriptor]? = nil
) async throws -> [HKSample] {
    try await withCheckedThrowingContinuation { continuation in
        let query = HKSampleQuery(sampleType: type, predicate: predicate, limit: limit, sortDescriptors: sort) {
            _, samples, error in
            if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: samples ?? []) }
        }
        store.execute(query)
    }
}

let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)

/// Waits until this process has the store at `path` (and its `-wal` and `-shm` files) open no more, within 10 s of
/// real time (a limit for a store that is never closed: the test then fails). A store is closed when its last
/// reference goes, and a task of the store's that has just resumed the caller may still hold one for a moment.
func waitUntilClosed(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let deadline = ContinuousClock.now.advanced(by: .seconds(10))
    func isOpen() -> Bool {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.contains {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0))?.hasPrefix(path) == true
        }
    }
    while isOpen() {
        guard ContinuousClock.now < deadline else {
            Issue.record("\(path) is still open 10 s after its store's last use", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

func heartRate(_ bpm: Double, at offset: TimeInterval, length: TimeInterval = 1) -> HKQuantitySample {
    HKQuantitySample(
        type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: bpm),
        start: t0 + offset, end: t0 + offset + length)
}

/// Expects `body` to throw an `HKError` with `code`, and returns it.
@discardableResult
func expectHKError(
    _ code: HKError.Code, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> HKError? {
    do {
        try await body()
        Issue.record("expected HKError \(code), nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as HKError {
        #expect(error.code == code, "\(error.message)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected HKError \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
