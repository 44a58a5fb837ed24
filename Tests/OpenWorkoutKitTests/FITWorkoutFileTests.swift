import Foundation
import OpenHealthKit
import OpenWorkoutKit
import TestSupport
import Testing
import WorkoutPlanFiles

/// FIT workout files: written here, read back here, and read by Garmin's FIT SDK and fitparse.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct FITWorkoutFileTests {
    static let plan = WorkoutPlan(
        .custom(
            CustomWorkout(
                activity: .cycling, location: .indoor, displayName: "5 × 4 min",
                warmup: WorkoutStep(goal: .time(10, .minutes), alert: .power(150, unit: .watts), displayName: "Easy"),
                blocks: [
                    IntervalBlock(
                        steps: [
                            IntervalStep(.work, goal: .time(4, .minutes), alert: .power(270 ... 290, unit: .watts)),
                            IntervalStep(.recovery, goal: .time(3, .minutes), alert: .heartRate(zone: 2)),
                        ], iterations: 5),
                    IntervalBlock(
                        steps: [IntervalStep(.work, goal: .distance(2, .kilometers), alert: .cadence(90))],
                        iterations: 1),
                ],
                cooldown: WorkoutStep(goal: .open, alert: .heartRate(100 ... 130)))))

    @Test func aPlanWritesAsAFITWorkoutAndReadsBack() throws {
        let data = try PlanFiles.write(Self.plan, format: .fit)
        let back = try PlanFiles.read(data, format: .fit, name: "plan.fit")
        // Units are FIT's (seconds, metres); the targets and the structure are the plan's.
        guard case .custom(let workout) = back.workout else {
            Issue.record("not custom")
            return
        }
        #expect(workout.displayName == "5 × 4 min")
        #expect(workout.activity == .cycling && workout.location == .indoor)
        #expect(
            workout.warmup
                == WorkoutStep(goal: .time(600, .seconds), alert: .power(150, unit: .watts), displayName: "Easy"))
        #expect(workout.blocks.map(\.iterations) == [5, 1])
        #expect(workout.blocks[0].steps.map(\.purpose) == [.work, .recovery])
        #expect(workout.blocks[0].steps[0].step.alert as? PowerRangeAlert == .power(270 ... 290, unit: .watts))
        #expect(workout.blocks[0].steps[1].step.alert as? HeartRateZoneAlert == .heartRate(zone: 2))
        #expect(workout.blocks[1].steps[0].step.goal == .distance(2000, .meters))
        #expect(workout.blocks[1].steps[0].step.alert as? CadenceThresholdAlert == .cadence(90))
        #expect(workout.cooldown?.goal == .open)
        #expect(back.plannedDuration == nil)
        #expect(back.plannedSteps.count == Self.plan.plannedSteps.count)
    }

    @Test func garminsSDKAndFitparseReadTheWorkoutFile() throws {
        let path = NSTemporaryDirectory() + "plan-\(UUID().uuidString).fit"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try PlanFiles.write(Self.plan, format: .fit).write(to: URL(fileURLWithPath: path))
        for reader in ["decode-garmin", "decode-fitparse"] {
            let messages = try ExportOracle.decode(reader, path: path)
            let fileID = try #require(messages.first { $0.number == 0 }, "\(reader)")
            #expect(fileID.number(0) == 5, "\(reader): file type workout")
            let workout = try #require(messages.first { $0.number == 26 }, "\(reader)")
            #expect(workout.number(4) == 2 && workout.number(6) == 6 && workout.number(11) == 6, "\(reader)")
            #expect(workout.string(8) == "5 × 4 min", "\(reader)")
            let steps = messages.filter { $0.number == 27 }
            #expect(steps.count == 6, "\(reader)")
            // Warm-up: 600 000 ms at 150 W (custom, +1000), intensity warmup.
            #expect(steps[0].number(1) == 0 && steps[0].number(2) == 600_000 && steps[0].number(3) == 4, "\(reader)")
            #expect(steps[0].number(5) == 1150 && steps[0].number(6) == 1150 && steps[0].number(7) == 2, "\(reader)")
            // The repeat: back to step index 1, 5 times.
            #expect(steps[3].number(1) == 6 && steps[3].number(2) == 1 && steps[3].number(4) == 5, "\(reader)")
            // Heart-rate zone 2; cool-down 100–130 bpm (+100).
            #expect(steps[2].number(3) == 1 && steps[2].number(4) == 2 && steps[2].number(7) == 4, "\(reader)")
            #expect(steps[5].number(5) == 200 && steps[5].number(6) == 230 && steps[5].number(7) == 3, "\(reader)")
        }
    }

    @Test func badFITWorkoutFilesAreRefused() throws {
        let good = try PlanFiles.write(Self.plan, format: .fit)
        #expect(throws: PlanFileError.self) { try PlanFiles.read(good.prefix(40), format: .fit, name: "cut.fit") }
        #expect(throws: PlanFileError.self) { try PlanFiles.read(Data("not fit".utf8), format: .fit, name: "x.fit") }
        var flipped = [UInt8](good)
        for index in stride(from: 14, to: flipped.count - 2, by: 7) {
            flipped[index] ^= 0x5A
            // Never a trap: an error or a plan the checks accept.
            _ = try? PlanFiles.read(Data(flipped), format: .fit, name: "flipped.fit")
        }
    }
}
