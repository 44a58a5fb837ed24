import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit

/// Observer queries fire when any connection — this store object, another one, another process — saves or deletes
/// data of their types.
@Suite(.timeLimit(.minutes(1))) struct ObserverQueryTests {
    /// Each call of an observer's update handler: the types it named (nil on the first call) and when it came.
    final class Calls: Sendable {
        let stream: AsyncStream<(types: Set<String>?, at: Date)>
        let continuation: AsyncStream<(types: Set<String>?, at: Date)>.Continuation
        init() { (stream, continuation) = AsyncStream.makeStream() }
    }

    func observe(_ store: HKHealthStore, _ types: [HKSampleType]) -> (HKObserverQuery, Calls) {
        let calls = Calls()
        let query = HKObserverQuery(queryDescriptors: types.map { HKQueryDescriptor(sampleType: $0, predicate: nil) }) {
            _, changed, done, error in
            #expect(error == nil)
            calls.continuation.yield((changed.map { Set($0.map(\.identifier)) }, Date()))
            done()
        }
        store.execute(query)
        return (query, calls)
    }

    @Test func firesOnceAtStartThenForEachChangeOfItsTypes() async throws {
        let store = try await authorizedStore()
        let (query, calls) = observe(store, [HKQuantityType(.heartRate), HKQuantityType(.stepCount)])
        var next = calls.stream.makeAsyncIterator()
        #expect(try #require(await next.next()).types == nil)
        // Energy is not observed: saving it calls nobody; the heart rate saved after it is the next call.
        try await store.save(
            HKQuantitySample(
                type: HKQuantityType(.activeEnergyBurned), quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 5),
                start: t0, end: t0 + 60))
        let sample = heartRate(70, at: 0)
        try await store.save(sample)
        #expect(try #require(await next.next()).types == [HKQuantityTypeIdentifier.heartRate.rawValue])
        try await store.delete(sample)
        #expect(try #require(await next.next()).types == [HKQuantityTypeIdentifier.heartRate.rawValue])
        store.stop(query)
        try await store.save(heartRate(71, at: 5))
        calls.continuation.finish()
        #expect(await next.next() == nil)
    }

    /// The observer's store paces its change watcher on a manual clock: once the watcher sleeps, another connection
    /// commits, and one tick of the watcher (250 ms of clock time, well within a second) brings the call. No real
    /// time is measured, so a loaded machine cannot make the test fail.
    @Test func anotherStoreObjectOnTheSameFileIsNoticedAtTheNextTick() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("health.sqlite")
        let observer = try await authorizedStore(client: "observer", databasePath: path)
        let clock = ManualClock()
        observer.clock = clock
        let writer = try await authorizedStore(client: "writer", databasePath: path)
        let (query, calls) = observe(observer, [HKQuantityType(.heartRate)])
        var next = calls.stream.makeAsyncIterator()
        #expect(try #require(await next.next()).types == nil)
        try await clock.waitForSleepers(1)
        try await writer.save(heartRate(90, at: 0))
        clock.advance(by: StoreChangeWatcher.interval)
        let call = try #require(await next.next())
        #expect(call.types == [HKQuantityTypeIdentifier.heartRate.rawValue])
        observer.stop(query)
    }

    /// The `workout` tool, in a child process, saves a run (heart rate among its samples) into the store an observer
    /// in this process watches: the next tick of the watcher after the child exits calls the observer.
    @Test func anotherProcessSavingIsNoticedAtTheNextTick() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("health.sqlite")
        let observer = try await authorizedStore(client: "observer", databasePath: path)
        let clock = ManualClock()
        observer.clock = clock
        try await observer.enableBackgroundDelivery(for: HKQuantityType(.heartRate), frequency: .immediate)
        #expect(observer.backgroundDeliveryFrequency(for: HKQuantityType(.heartRate)) == .immediate)
        let (query, calls) = observe(observer, [HKQuantityType(.heartRate), HKQuantityType(.cyclingPower)])
        var next = calls.stream.makeAsyncIterator()
        #expect(try #require(await next.next()).types == nil)
        try await clock.waitForSleepers(1)

        let process = Process()
        process.standardInput = FileHandle.nullDevice
        process.executableURL = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("workout")
        process.arguments = ["demo", "--store", path]
        process.standardOutput = FileHandle.nullDevice
        // Wait for the child without blocking a thread of the concurrency pool, for at most the children's limit:
        // past it the child is killed (SIGKILL) and the test fails on its status.
        var killer: Task<Void, Never>?
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { return continuation.resume(throwing: error) }
            let child = process.processIdentifier
            killer = Task {
                guard (try? await Task.sleep(for: .seconds(childProcessTimeLimit))) != nil else { return }
                kill(child, SIGKILL)
            }
        }
        killer?.cancel()
        #expect(status == 0, "workout demo exited with \(status) (killed past \(Int(childProcessTimeLimit)) s if 9)")
        clock.advance(by: StoreChangeWatcher.interval)
        let call = try #require(await next.next())
        // The run has heart rate, energy and distance: of the observed types, only heart rate changed.
        #expect(call.types == [HKQuantityTypeIdentifier.heartRate.rawValue])
        observer.stop(query)
        try await observer.disableAllBackgroundDelivery()
        #expect(observer.backgroundDeliveryFrequency(for: HKQuantityType(.heartRate)) == nil)
    }
}
