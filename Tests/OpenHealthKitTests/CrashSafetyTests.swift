import Foundation
import OpenHealthKit
import TestSupport
import Testing

/// A live session in a child process is killed with SIGKILL; the parent recovers it and finds every sample older
/// than one second. The child runs on manual clocks (see `SessionCrashHelper`), so the rule is checked against the
/// journal's own time, not against how busy the machine is; the read from the child has a deadline.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct CrashSafetyTests {
    static var helper: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("SessionCrashHelper")
    }

    @Test func killedSessionIsRecoveredWithEverySampleOlderThanOneSecond() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("crash.sqlite")
        let process = Process()
        process.standardInput = FileHandle.nullDevice
        process.executableURL = Self.helper
        process.arguments = [path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()

        // Read what the child reports until it has run for 2.5 s of its own time, then kill it. A child that stops
        // reporting is killed by the deadline, and the test fails on the missing lines.
        let deadline = DispatchWorkItem { kill(process.processIdentifier, SIGKILL) }
        // Just under the suite's one-minute limit: a hung child still ends, and a slow machine (a full parallel run
        // on two loaded cores took 44 s here) is not mistaken for one.
        DispatchQueue.global().asyncAfter(deadline: .now() + 55, execute: deadline)
        defer { deadline.cancel() }
        var sent: [(index: Int, time: Double)] = []
        var buffer = Data()
        var started: Double?
        let handle = output.fileHandleForReading
        reading: while true {
            let chunk = handle.availableData
            guard !chunk.isEmpty else { break }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex ..< newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex ... newline)
                let fields = line.split(separator: " ")
                if fields.first == "started" { started = Double(fields[1]) }
                if fields.first == "sent", fields.count == 3, let index = Int(fields[1]), let time = Double(fields[2]) {
                    sent.append((index, time))
                    if let started, time - started >= 2.5 { break reading }
                }
            }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit(within: 10)
        #expect(process.terminationReason == .uncaughtSignal)
        let killedAt = try #require(sent.last?.time)
        #expect(sent.count > 50)

        let store = try HKHealthStore(databasePath: path, clientIdentifier: "crash-test")
        store.wallClock = { Date(timeIntervalSinceReferenceDate: killedAt + 1) }
        let session = try #require(try await store.recoverActiveWorkoutSession())
        #expect(session.state == .running)
        #expect(session.currentActivity.metadata?["leg"] as? Int == 1)
        let builder = session.associatedWorkoutBuilder()
        session.end()
        try await builder.endCollection(at: Date(timeIntervalSinceReferenceDate: killedAt + 1))
        let workout = try #require(try await builder.finishWorkout())
        let samples = try await HKSampleQueryDescriptor(
            predicates: [
                .quantitySample(type: HKQuantityType(.heartRate), predicate: HKQuery.predicateForObjects(from: workout))
            ],
            sortDescriptors: [SortDescriptor(\.startDate)]
        ).result(for: store)
        let recorded = Set(samples.map(\.startDate.timeIntervalSinceReferenceDate))
        let mustSurvive = sent.filter { $0.time <= killedAt - 1 }
        // A sample's time is its reading's arrival time to the millisecond (the data source rounds it).
        let lost = mustSurvive.filter { !recorded.contains(($0.time * 1000).rounded() / 1000) }
        #expect(!mustSurvive.isEmpty)
        #expect(
            lost.isEmpty, "lost \(lost.count) of \(mustSurvive.count) samples older than 1 s, e.g. \(lost.prefix(3))")
        #expect(try await store.recoverActiveWorkoutSession() == nil)
    }
}
