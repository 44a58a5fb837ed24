// Apple's article "Authorizing access to health data":
// https://developer.apple.com/documentation/healthkit/authorizing-access-to-health-data
//
// Its listings, except the SwiftUI view that uses HealthKitUI's `healthDataAccessRequest` modifier (SwiftUI and
// HealthKitUI do not exist on Linux; OpenHealthKit has no sheet to show). Changed for Linux: `import HealthKit` is
// `import OpenHealthKit`. Changed for the test: the listing's `healthStore` is passed in.
import OpenHealthKit
import Testing

enum AuthorizingAccessToHealthData {
    // Create the HealthKit data types your app
    // needs to read and write.
    static let allTypes: Set = [
        HKQuantityType.workoutType(),
        HKQuantityType(.activeEnergyBurned),
        HKQuantityType(.distanceCycling),
        HKQuantityType(.distanceWalkingRunning),
        HKQuantityType(.distanceWheelchair),
        HKQuantityType(.heartRate),
    ]

    static func requestAccess(healthStore: HKHealthStore) async {
        do {
            // Check that Health data is available on the device.
            if HKHealthStore.isHealthDataAvailable() {

                // Asynchronously request authorization to the data.
                try await healthStore.requestAuthorization(toShare: allTypes, read: allTypes)
            }
        } catch {

            // Typically, authorization requests only fail if you haven't set the
            // usage and share descriptions in your app's Info.plist, or if
            // Health data isn't available on the current device.
            fatalError(
                "*** An unexpected error occurred while requesting authorization: \(error.localizedDescription) ***")
        }
    }
}

@Suite(.timeLimit(.minutes(1))) struct AuthorizingAccessToHealthDataTests {
    /// The request is answered by the store's policy (grant everything, the default): every type may be shared
    /// afterwards, and asking again asks nothing.
    @Test func theRequestGrantsEveryType() async throws {
        let rig = ArticleRig()
        await AuthorizingAccessToHealthData.requestAccess(healthStore: rig.store)
        for type in AuthorizingAccessToHealthData.allTypes {
            #expect(rig.store.authorizationStatus(for: type) == .sharingAuthorized)
        }
        let again = try await rig.store.statusForAuthorizationRequest(
            toShare: AuthorizingAccessToHealthData.allTypes, read: AuthorizingAccessToHealthData.allTypes)
        #expect(again == .unnecessary)
    }
}
