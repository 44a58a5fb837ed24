import BlueZTransport
import FitnessSensors
import Foundation
import OpenHealthKit
import TestSupport
import Testing

/// The watch side of Apple's sample "Building a multidevice workout app", written as the sample writes it, with
/// only its import changed: it mirrors its session to the companion before starting, and from `didCollectDataOf`
/// archives each statistics object (`NSKeyedArchiver`, secure coding) and sends it to the remote session; it ends
/// collection and finishes the workout when the session reaches `.ended` — here because the companion ended it.
final class MirroredWorkoutManager: NSObject, HKWorkoutSessionDelegate, HKLiveWorkoutBuilderDelegate,
    @unchecked Sendable
{
    let healthStore: HKHealthStore
    var session: HKWorkoutSession?
    var builder: HKLiveWorkoutBuilder?
    let shown = AsyncStream<Double>.makeStream()
    let finished = AsyncStream<HKWorkout?>.makeStream()

    init(healthStore: HKHealthStore) { self.healthStore = healthStore }

    func startWorkout(workoutConfiguration: HKWorkoutConfiguration) async throws {
        session = try HKWorkoutSession(healthStore: healthStore, configuration: workoutConfiguration)
        builder = session?.associatedWorkoutBuilder()
        session?.delegate = self
        builder?.delegate = self
        builder?.dataSource = HKLiveWorkoutDataSource(
            healthStore: healthStore, workoutConfiguration: workoutConfiguration)
        // Start mirroring the session to the companion device, then the workout.
        try await session?.startMirroringToCompanionDevice()
        let startDate = Date()
        session?.startActivity(with: startDate)
        try await builder?.beginCollection(at: startDate)
    }

    func sendData(_ data: Data) async {
        do { try await session?.sendToRemoteWorkoutSession(data: data) } catch {}
    }

    // MARK: HKWorkoutSessionDelegate

    func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
        from fromState: HKWorkoutSessionState, date: Date
    ) {
        guard toState == .ended, let builder else { return }
        Task {
            try await builder.endCollection(at: date)
            let workout = try await builder.finishWorkout()
            finished.continuation.yield(workout)
        }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: Error) {}

    func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {}

    func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?)
    {}

    // MARK: HKLiveWorkoutBuilderDelegate

    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {}

    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {
        let allStatistics = collectedTypes.compactMap {
            ($0 as? HKQuantityType).flatMap(workoutBuilder.statistics(for:))
        }
        for statistics in allStatistics {
            guard
                let archivedData = try? NSKeyedArchiver.archivedData(
                    withRootObject: statistics, requiringSecureCoding: true)
            else { continue }
            // Archived on this queue, sent in order: each send joins the connection's outbox before the next.
            Task { await sendData(archivedData) }
            if statistics.quantityType == HKQuantityType(.heartRate),
                let bpm = statistics.mostRecentQuantity()?.doubleValue(for: HKUnit.count().unitDivided(by: .minute()))
            {
                shown.continuation.yield(bpm)
            }
        }
    }
}

/// The mirrored sample against a companion in another process (`MirrorCompanionHelper`, the iPhone side) on the same
/// store file, with a simulated strap paired with the store. The companion sees the statistics the manager sends and
/// ends the workout; the manager finishes it. Reads from the child wait under the suite's time limit, and a deadline
/// kills a child that hangs.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct MirroredWorkoutManagerTests {
    @Test func theCompanionProcessFollowsTheRideAndEndsIt() async throws {
        let directory = NSTemporaryDirectory() + "ohk-mirror-app-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/health.sqlite"

        let companion = Process()
        companion.standardInput = FileHandle.nullDevice
        companion.executableURL = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("MirrorCompanionHelper")
        companion.arguments = [path]
        let output = Pipe()
        companion.standardOutput = output
        try companion.run()
        let deadline = DispatchWorkItem { kill(companion.processIdentifier, SIGKILL) }
        // Just under the suite's one-minute limit: a hung child still ends, and a slow machine (a full parallel run
        // on two loaded cores took 44 s here) is not mistaken for one.
        DispatchQueue.global().asyncAfter(deadline: .now() + 55, execute: deadline)
        defer {
            deadline.cancel()
            // A test that fails early leaves no companion behind (it would hold the test run's output open).
            companion.killGroup()
        }
        var child = lines(of: output).makeAsyncIterator()
        #expect(await child.next() == "listening")

        let store = try HKHealthStore(databasePath: path, clientIdentifier: "WatchApp")
        let strap = SimulatedPeripheral(profile: .heartRateStrap())
        let link = SocketPairLink(strap)
        let clock = ManualClock()
        store.sensorConnector = SensorConnector(schemes: ["mirror-test"]) { paired in
            BLESensor(
                identifier: paired.identifier, name: paired.name, capabilities: paired.capabilities, clock: clock,
                connect: link.connect)
        }
        try await store.pairSensor(
            PairedSensor(identifier: "mirror-test:strap", name: "Strap", capabilities: .heartRateStrap))
        try await store.requestAuthorization(
            toShare: [HKQuantityType.workoutType()], read: [HKQuantityType(.heartRate)])

        let manager = MirroredWorkoutManager(healthStore: store)
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .cycling
        try await manager.startWorkout(workoutConfiguration: configuration)
        // Mirrored before it started (HKWorkoutActivityType.cycling 13, notStarted 1), then running (2).
        #expect(await child.next() == "mirrored 13 1")
        #expect(await child.next()?.hasPrefix("state 1 2 ") == true)
        try await strap.waitForMeasurementSubscriptions(1)

        var signal = HeartRateSignal()
        var sent: [Int] = []
        var shown = manager.shown.stream.makeAsyncIterator()
        for _ in 0 ..< 3 {
            sent.append(Int(signal.next().heartRate))
            _ = await strap.step()
            while let value = await shown.next(), Int(value) != sent.last! {}
            // The companion unarchives the statistics the manager sent: its most recent heart rate is the one sent.
            while let line = await child.next(), line != "statistics HKQuantityTypeIdentifierHeartRate \(sent.last!)" {}
        }

        // The companion ends the workout (the sample's iPhone can); the manager finishes it.
        try await manager.session?.sendToRemoteWorkoutSession(data: Data("end".utf8))
        var finished = manager.finished.stream.makeAsyncIterator()
        let workout = try #require(await finished.next() ?? nil)
        let statistics = try #require(workout.statistics(for: HKQuantityType(.heartRate)))
        #expect(statistics.maximumQuantity()?.doubleValue(for: HKUnit(from: "count/min")) == Double(sent.max()!))
        var rest: [String] = []
        while let line = await child.next() { rest.append(line) }
        #expect(rest.contains { $0.hasPrefix("state 2 3 ") }, "\(rest)")
        #expect(rest.last == "disconnected nil")
        companion.waitUntilExit(within: childProcessTimeLimit)
        #expect(companion.terminationStatus == 0)
    }
}
