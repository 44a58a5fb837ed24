import Foundation
import OpenHealthKit
import Testing

/// `workout sources`, run as a person would.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct SourcesCommandTests {
    @Test func listsAndReordersTheSourcesOfAType() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("sources.sqlite")
        let distance = HKQuantityType(.distanceCycling)
        do {
            let bike = try HKHealthStore(databasePath: path, clientIdentifier: "com.example.bike")
            try await bike.requestAuthorization(toShare: [distance], read: [distance])
            let phone = bike.asClient("com.example.phone")
            try await phone.requestAuthorization(toShare: [distance], read: [distance])
            let sample = { (client: HKHealthStore) in
                try await client.save([
                    HKQuantitySample(
                        type: distance, quantity: HKQuantity(unit: .meter(), doubleValue: 500),
                        start: Date(timeIntervalSinceReferenceDate: 780_000_000),
                        end: Date(timeIntervalSinceReferenceDate: 780_000_060))
                ])
            }
            try await sample(bike)
            try await sample(phone)
        }
        let listed = try Tool.run(["sources", "distanceCycling", "--store", path])
        #expect(listed.status == 0, "\(listed.stderr)")
        // A source's name is the saving process's name (here the test runner), shown after its identifier.
        let name = " (\(ProcessInfo.processInfo.processName))"
        #expect(listed.stdout == "distanceCycling:\n  1. com.example.bike\(name)\n  2. com.example.phone\(name)\n")
        let set = try Tool.run(["sources", "distanceCycling", "--set", "com.example.phone", "--store", path])
        #expect(set.stdout == "distanceCycling:\n  1. com.example.phone\(name)\n  2. com.example.bike\(name)\n")
        let unknown = try Tool.run(["sources", "distanceCycling", "--set", "com.example.watch", "--store", path])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("No source 'com.example.watch' has saved distanceCycling"))
        let reset = try Tool.run(["sources", "distanceCycling", "--reset", "--store", path])
        #expect(reset.stdout == listed.stdout)
    }
}
