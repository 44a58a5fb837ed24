import ArgumentParser
import Foundation
import WorkoutCommands

// The `workout` tool's commands on stepped time, for the tool's own tests (WorkoutCommandTests, `SteppedClock`):
//     WORKOUT_TEST_CLOCK=SOCKET SteppedWorkoutHelper record|peripheral|replay … (the tool's arguments)
// See SteppedTime for the line protocol the test moves time with.

/// A failure of the helper itself (not of a command): one sentence on standard error, exit 2.
struct HelperFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

do {
    let time = try SteppedTime.fromEnvironment()
    await Workout.$time.withValue(time) { await Workout.main() }
} catch {
    let message = (error as? HelperFailure)?.message ?? "\(error)"
    FileHandle.standardError.write(Data("SteppedWorkoutHelper: \(message)\n".utf8))
    exit(2)
}
