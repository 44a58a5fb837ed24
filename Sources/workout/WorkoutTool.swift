import ArgumentParser
import WorkoutCommands

/// The `workout` tool: the commands of WorkoutCommands, on the machine's clocks.
@main
enum WorkoutTool {
    static func main() async {
        await Workout.main()
    }
}
