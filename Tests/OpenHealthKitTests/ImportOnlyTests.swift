// This file imports OpenHealthKit and nothing that brings Foundation, as a HealthKit app's file imports only
// HealthKit. It compiles only because OpenHealthKit re-exports Foundation (without the re-export:
// "cannot find type 'NSObject' in scope").
import OpenHealthKit
import Testing

/// An app type written against HealthKit: an NSObject subclass holding dates and a predicate.
private final class WorkoutLog: NSObject {
    let start = Date(timeIntervalSinceReferenceDate: 0)
    let predicate: NSPredicate = HKQuery.predicateForSamples(
        withStart: Date(timeIntervalSinceReferenceDate: 0),
        end: Date(timeIntervalSinceReferenceDate: 3600),
        options: .strictStartDate)
}

@Suite struct ImportOnlyTests {
    @Test func foundationIsVisibleThroughOpenHealthKit() {
        let log = WorkoutLog()
        let later: Date = log.start.addingTimeInterval(60)
        #expect(later.timeIntervalSince(log.start) == 60)
        #expect(log.isKind(of: NSObject.self))
        #expect(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") != nil)
        #expect(log.predicate.isKind(of: NSPredicate.self))
    }
}
