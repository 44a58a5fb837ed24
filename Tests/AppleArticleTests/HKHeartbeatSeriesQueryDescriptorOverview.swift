// The listing of Apple's HKHeartbeatSeriesQueryDescriptor reference page (its overview):
// https://developer.apple.com/documentation/healthkit/hkheartbeatseriesquerydescriptor
//
// It reads the beats of a heartbeat series sample through the descriptor's async sequence. Changed for Linux:
// `import HealthKit` is `import OpenHealthKit`. Changed for the test: "Process the results here" (two `print`s)
// also collects each beat for the test; the sample is one the test builds with a heartbeat series builder.
import OpenHealthKit
import Testing

enum HKHeartbeatSeriesQueryDescriptorOverview {
    static func beats(
        of myHeartbeatSample: HKHeartbeatSeriesSample, store: HKHealthStore
    ) async throws -> [(
        TimeInterval, Bool
    )] {
        var beats: [(TimeInterval, Bool)] = []

        // Create the descriptor.
        let heartbeatDescriptor = HKHeartbeatSeriesQueryDescriptor(myHeartbeatSample)

        // Get the AsyncSequence that returns individual heartbeats.
        let series = heartbeatDescriptor.results(for: store)

        // Access the data for each haeartbeat.
        for try await heartbeat in series {

            // Process the results here.
            print(heartbeat.precededByGap)
            print(heartbeat.timeIntervalSinceStart)
            beats.append((heartbeat.timeIntervalSinceStart, heartbeat.precededByGap))
        }
        return beats
    }
}

@Suite(.timeLimit(.minutes(1))) struct HKHeartbeatSeriesQueryDescriptorOverviewTests {
    /// Four beats with a gap before the third, built and saved, come back in order with their gap flags; the
    /// sequence ends by itself.
    @Test func theBeatsComeBackInOrderAndTheSequenceEnds() async throws {
        let rig = ArticleRig()
        try await rig.store.authorizeWorkoutTypes()
        let builder = HKHeartbeatSeriesBuilder(healthStore: rig.store, device: nil, start: rig.date(0))
        let written: [(TimeInterval, Bool)] = [(0.8, false), (1.6, false), (4.0, true), (4.75, false)]
        for (time, gap) in written { try await builder.addHeartbeat(at: time, precededByGap: gap) }
        let sample = try await builder.finishSeries()
        #expect(sample.count == 4)

        let read = try await HKHeartbeatSeriesQueryDescriptorOverview.beats(of: sample, store: rig.store)
        #expect(read.map(\.0) == written.map(\.0))
        #expect(read.map(\.1) == written.map(\.1))
    }
}
