import Foundation
import OpenHealthKit

extension HKHealthStore {
    /// A store for a test: in memory, on `clock` (its wall time, flush timer and replay pacing), reaching no real
    /// sensor (`SensorConnector/none`; attach scripted or fixture sensors to a data source instead). Nothing is
    /// authorized yet: call ``authorizeWorkoutTypes()`` or your app's own `requestAuthorization`, as a test of
    /// authorization would want. OpenHealthKitTesting.
    public static func testing(clock: TestClock, clientIdentifier: String = "tests") -> HKHealthStore {
        HKHealthStore.inMemory(clientIdentifier: clientIdentifier, clocks: clock.liveClocks, sensorConnector: .none)
    }

    /// Asks to share and read every type a live workout collects (workouts, heartbeat series and the quantity
    /// types of every activity's data source), as an app's first launch would. OpenHealthKitTesting.
    public func authorizeWorkoutTypes() async throws {
        let types = Self.workoutTypes
        try await requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
    }

    /// Workouts, heartbeat series and every quantity type a live data source may collect.
    public static var workoutTypes: Set<HKSampleType> {
        let quantities: [HKQuantityTypeIdentifier] = [
            .heartRate, .activeEnergyBurned, .basalEnergyBurned, .distanceWalkingRunning, .distanceCycling,
            .distanceSwimming, .distanceWheelchair, .stepCount, .runningSpeed, .runningPower, .runningStrideLength,
            .runningVerticalOscillation, .runningGroundContactTime, .cyclingPower, .cyclingCadence, .cyclingSpeed,
            .swimmingStrokeCount, .pushCount,
        ]
        return Set(quantities.map { HKQuantityType($0) as HKSampleType } + [.workoutType(), HKSeriesType.heartbeat()])
    }
}

/// A store in a file of its own, in a fresh temporary directory that is removed when this goes away: for tests of
/// what a real file does (a second store object on the same file, a process that reopens it). OpenHealthKitTesting.
public final class TemporaryHealthStore: Sendable {
    public let store: HKHealthStore
    /// The store's file.
    public let path: String
    private let directory: String

    public init(clock: TestClock, clientIdentifier: String = "tests") throws {
        directory = NSTemporaryDirectory() + "openhealthkit-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/health.sqlite"
        store = try HKHealthStore(
            databasePath: path, clientIdentifier: clientIdentifier, clocks: clock.liveClocks,
            sensorConnector: .none)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
}
