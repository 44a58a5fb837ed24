// What the articles take for granted and Linux does not have: a store (Apple's code uses the device's one), a clock
// the test moves (Apple's code reads `Date()`), and sensors (Apple Watch's are built in). The article files use this
// only in their tests, never inside the listings.
import FitnessSensors
import Foundation
import OpenHealthKit
import OpenHealthKitTesting
import Testing

/// A store in memory on a test clock, as a fresh install sees it: nothing authorized yet.
struct ArticleRig {
    let clock = TestClock()
    let store: HKHealthStore
    let strap = ScriptedSensor(identifier: "article:strap", name: "Strap", capabilities: .heartRateStrap)

    init(client: String = "articles") {
        store = HKHealthStore.testing(clock: clock, clientIdentifier: client)
    }

    /// The test clock's date `offset` seconds after it started.
    func date(_ offset: TimeInterval) -> Date { clock.start + offset }

    /// A running workout from `start`, `minutes` long, built and saved with a workout builder.
    func saveWorkout(start: Date, minutes: Double = 30) async throws -> HKWorkout {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: nil)
        try await builder.beginCollection(at: start)
        try await builder.endCollection(at: start + minutes * 60)
        return try #require(try await builder.finishWorkout())
    }

    /// Moves the clock to `offset` seconds and sends one heart-rate reading there.
    func beat(_ bpm: Int, at offset: TimeInterval) {
        clock.advance(by: .seconds(offset) - clock.now.offset)
        _ = strap.send(heartRate: bpm, at: date(offset))
    }
}

/// Waits for `condition`, looking every millisecond, until a deadline of 45 seconds that fails the test (completion handlers run on
/// the store's queues, not on the test's task).
func eventually(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async {
    // 45 s, inside the suites' one-minute limit: a fresh CI run (a cold build beside 180 suites on 2 cores) took
    // more than 10 s to answer an authorization request. Each look gives the thread up for a millisecond: a loop
    // of bare yields kept a cooperative thread busy that the work being waited for needed.
    let deadline = ContinuousClock.now + .seconds(45)
    while ContinuousClock.now < deadline {
        if condition() { return }
        try? await Task.sleep(for: .milliseconds(1))
    }
    Issue.record("\(what) did not happen within 45 s", sourceLocation: sourceLocation)
}

/// A value a completion handler sets and a test reads.
final class Box<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// A store in a file of its own (mirroring needs a file: the companion is another store object on it), removed when
/// the rig goes away.
final class FileRig: Sendable {
    let clock = TestClock()
    private let temporary: TemporaryHealthStore
    var store: HKHealthStore { temporary.store }
    var path: String { temporary.path }

    init(client: String) throws {
        temporary = try TemporaryHealthStore(clock: clock, clientIdentifier: client)
    }

    func authorizeWorkoutTypes() async throws { try await store.authorizeWorkoutTypes() }
}
