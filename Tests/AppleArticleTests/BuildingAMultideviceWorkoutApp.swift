// Apple's sample-code article "Building a multidevice workout app" (WWDC23 session 10023):
// https://developer.apple.com/documentation/healthkit/building-a-multidevice-workout-app
// and the listing of HKHealthStore.workoutSessionMirroringStartHandler's reference page.
//
// The HealthKit code of the sample's two `WorkoutManager`s, written here following its calls: the watch starts a
// session, mirrors it to the phone and sends it data; the phone catches the mirrored session and answers. Changed for
// Linux: `import HealthKit` is `import OpenHealthKit`; SwiftUI, Combine and `os.Logger` are gone (`logger` is a
// stand-in with the same `debug(_:)` call). The two devices are two store objects on one store file, which is how
// OpenHealthKit mirrors (see MirroringTests).
import OpenHealthKit
import Testing

/// What the sample's `logger` (an `os.Logger`) is called with.
struct ArticleLogger: Sendable {
    func debug(_ message: String) {}
}

let logger = ArticleLogger()

/// The watch's side.
final class WatchWorkoutManager: NSObject, HKWorkoutSessionDelegate, HKLiveWorkoutBuilderDelegate,
    @unchecked Sendable
{
    let healthStore: HKHealthStore
    var session: HKWorkoutSession?
    var builder: HKLiveWorkoutBuilder?
    private let lock = NSLock()
    private var received: [Data] = []

    init(healthStore: HKHealthStore) { self.healthStore = healthStore }

    func startWorkout(workoutConfiguration: HKWorkoutConfiguration, startDate: Date) async throws {
        session = try HKWorkoutSession(healthStore: healthStore, configuration: workoutConfiguration)
        builder = session?.associatedWorkoutBuilder()
        session?.delegate = self
        builder?.delegate = self
        builder?.dataSource = HKLiveWorkoutDataSource(
            healthStore: healthStore,
            workoutConfiguration: workoutConfiguration)

        // Start mirroring the session to the companion device.
        try await session?.startMirroringToCompanionDevice()

        // Start the workout session activity.
        // (The sample passes `Date()`; the test passes its date.)
        session?.startActivity(with: startDate)
        try await builder?.beginCollection(at: startDate)
    }

    func sendData(_ data: Data) async {
        do {
            try await session?.sendToRemoteWorkoutSession(data: data)
        } catch {
            logger.debug("Failed to send data: \(error)")
        }
    }

    func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
        from fromState: HKWorkoutSessionState, date: Date
    ) {
        logger.debug("Session state changed from \(fromState.rawValue) to \(toState.rawValue)")
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {
        logger.debug("\(error)")
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
        logger.debug("\(#function): \(data.debugDescription)")
        lock.withLock { received += data }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?)
    {
        logger.debug("\(#function): \(error.debugDescription)")
    }

    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {}

    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {}

    var dataFromPhone: [Data] { lock.withLock { received } }
}

/// The phone's side.
final class PhoneWorkoutManager: NSObject, HKWorkoutSessionDelegate, @unchecked Sendable {
    struct HealthData {}

    let store: HKHealthStore
    var data = HealthData()
    private let lock = NSLock()
    private var mirrored: HKWorkoutSession?
    private var received: [Data] = []

    var session: HKWorkoutSession? {
        get { lock.withLock { mirrored } }
        set {
            lock.withLock { mirrored = newValue }
            newValue?.delegate = self
        }
    }

    init(store: HKHealthStore) {
        self.store = store
        super.init()
        // The HealthKit store calls this closure when Apple Watch starts a remote session.
        store.workoutSessionMirroringStartHandler = { mirroredSession in
            // Reset the health data.
            self.data = HealthData()

            // Save a reference to the workout session.
            self.session = mirroredSession
            logger.debug("*** A session started on the companion Apple Watch. ***")
        }
    }

    func sendData(_ data: Data) async throws {
        try await session?.sendToRemoteWorkoutSession(data: data)
    }

    func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
        from fromState: HKWorkoutSessionState, date: Date
    ) {}

    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {}

    func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
        lock.withLock { received += data }
    }

    var dataFromWatch: [Data] { lock.withLock { received } }
}

@Suite(.timeLimit(.minutes(1))) struct BuildingAMultideviceWorkoutAppTests {
    /// The watch starts a mirrored cycling workout; the phone's start handler catches it running, and data crosses
    /// both ways in order.
    @Test func theWatchMirrorsItsWorkoutToThePhone() async throws {
        let rig = try FileRig(client: "watch")
        try await rig.authorizeWorkoutTypes()
        let phoneStore = try HKHealthStore(databasePath: rig.path, clientIdentifier: "phone")
        let phone = PhoneWorkoutManager(store: phoneStore)
        let watch = WatchWorkoutManager(healthStore: rig.store)

        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .cycling
        configuration.locationType = .outdoor
        try await watch.startWorkout(workoutConfiguration: configuration, startDate: rig.clock.date)

        await eventually("the mirrored session running") { phone.session?.state == .running }
        let mirrored = try #require(phone.session)
        #expect(mirrored.type == .mirrored && mirrored.workoutConfiguration.activityType == .cycling)

        await watch.sendData(Data("elapsed 60".utf8))
        try await phone.sendData(Data("pause".utf8))
        await eventually("the watch's data on the phone") { phone.dataFromWatch == [Data("elapsed 60".utf8)] }
        await eventually("the phone's data on the watch") { watch.dataFromPhone == [Data("pause".utf8)] }

        watch.session?.end()
        await eventually("the mirrored session ended") { mirrored.state == .ended }
    }
}
