/// `import OpenHealthKit` makes Foundation visible, as `import HealthKit` does: HealthKit's module map re-exports
/// Foundation, so a file written for HealthKit uses `NSObject`, `Date`, `NSPredicate` or `UUID` with that one
/// import. HealthKit: "HealthKit.h" (`#import <Foundation/Foundation.h>`).
@_exported import Foundation
