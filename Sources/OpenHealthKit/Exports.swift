/// `import OpenHealthKit` makes Foundation visible, as `import HealthKit` does: HealthKit's module map re-exports
/// Foundation, so a file written for HealthKit uses `NSObject`, `Date`, `NSPredicate` or `UUID` with that one
/// import. HealthKit: "HealthKit.h" (`#import <Foundation/Foundation.h>`).
@_exported import Foundation
/// Apple's value and object model (`HKUnit`, `HKQuantityType`, `HKWorkout`, …) and the recording engine live in
/// targets of their own (ARCHITECTURE.md); `import OpenHealthKit` gives them, so an app imports one module, as with
/// HealthKit.
@_exported import HealthKitModel
@_exported import WorkoutEngine
