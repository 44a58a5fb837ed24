import Foundation
import OpenHealthKit

extension LiveRecording {
    /// Waits until the recording is idle after its test clock moved: `sleepers` tasks asleep on `clock` again (a
    /// running plan's update loop and the journal's flush timer, say) and every trainer's answer heard. Throws
    /// ``WaitTimedOut`` once `limit` of real time passed without it, so a recording that never settles fails its test
    /// instead of hanging it. OpenHealthKitTesting.
    public func waitUntilIdle(
        on clock: TestClock, sleepers: Int, within limit: Duration = .seconds(10)
    ) async throws {
        try await clock.waitForSleepers(sleepers, within: limit)
        let deadline = ContinuousClock.now + limit
        while trainers?.isAwaitingAnswers == true {
            guard ContinuousClock.now < deadline else { throw WaitTimedOut("the trainers' answers", after: limit) }
            await Task.yield()
        }
        // The task that asked may go back to sleep only after the answer came.
        try await clock.waitForSleepers(sleepers, within: limit)
    }
}
