// Apple's article "Setting up HealthKit":
// https://developer.apple.com/documentation/healthkit/setting-up-healthkit
//
// Its two listings. Changed for Linux: `import HealthKit` is `import OpenHealthKit`. The Xcode steps (capability,
// Info.plist keys) have no code and nothing to do on Linux.
import OpenHealthKit
import Testing

@Suite struct SettingUpHealthKitTests {
    /// Health data is available on Linux (the store is a file the person owns), and `HKHealthStore()` makes the
    /// default store without touching its file until it is used.
    @Test func theListingsRun() {
        var made: HKHealthStore?

        if HKHealthStore.isHealthDataAvailable() {
            // Add code to use HealthKit here.
            let healthStore = HKHealthStore()
            made = healthStore
        }

        #expect(made != nil)
    }
}
