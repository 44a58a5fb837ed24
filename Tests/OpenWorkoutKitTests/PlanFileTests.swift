import Foundation
import OpenHealthKit
import OpenWorkoutKit
import Testing
import WorkoutPlanFiles

/// Zwift `.zwo`, `.erg` and `.mrc` files to and from `WorkoutPlan`.
@Suite(.timeLimit(.minutes(1))) struct PlanFileTests {
    static let zwo = """
        <workout_file>
            <author>Coach</author>
            <name>Sweet spot &amp; more</name>
            <sportType>bike</sportType>
            <workout>
                <Warmup Duration="120" PowerLow="0.5" PowerHigh="0.7"/>
                <SteadyState Duration="300" Power="0.88"><textevent timeoffset="10" message="Settle in"/></SteadyState>
                <IntervalsT Repeat="5" OnDuration="240" OffDuration="180" OnPower="1.12" OffPower="0.6"/>
                <FreeRide Duration="60" FlatRoad="1"/>
                <Cooldown Duration="90" PowerLow="0.7" PowerHigh="0.4"/>
            </workout>
        </workout_file>
        """

    func read(_ text: String, _ format: PlanFileFormat, ftp: Double? = 250) throws(PlanFileError) -> WorkoutPlan {
        try PlanFiles.read(
            Data(text.utf8), format: format, name: "plan.\(format.rawValue)", functionalThresholdPower: ftp)
    }

    func watts(_ step: PlannedStep) -> Double? {
        (step.step.alert as? PowerThresholdAlert)?.target.converted(to: .watts).value
    }

    @Test func aZwiftWorkoutBecomesTimedPowerSteps() throws {
        let plan = try read(Self.zwo, .zwo)
        guard case .custom(let workout) = plan.workout else {
            Issue.record("not custom")
            return
        }
        #expect(workout.displayName == "Sweet spot & more")
        #expect(workout.activity == .cycling && workout.location == .indoor)
        let steps = plan.plannedSteps
        // Warm-up ramp 125→175 W over 2 minutes: two steps of a minute at 137.5 and 162.5 W.
        #expect(steps.prefix(2).map { watts($0) } == [137.5, 162.5])
        #expect(watts(steps[2]) == 220)
        // 5 × (240 s at 280 W, 180 s at 150 W) in one block.
        #expect(workout.blocks[1].iterations == 5)
        #expect(workout.blocks[1].steps.map(\.purpose) == [.work, .recovery])
        #expect(steps[3].duration == 240 && watts(steps[3]) == 280 && watts(steps[4]) == 150)
        // Free ride: timed, no target; cool-down ramp 175→100 W over 90 s: 60 s at 150 W, 30 s at 112.5 W.
        let free = steps[13]
        #expect(free.duration == 60 && free.step.alert == nil)
        #expect(steps[14...].map { watts($0) } == [150, 112.5])
        #expect(steps[14...].map(\.duration) == [60, 30])
        let expected: TimeInterval = 120 + 300 + 5 * 420 + 60 + 90
        #expect(plan.plannedDuration == expected)
        // It is a plan a .workout file holds.
        #expect(try WorkoutPlan(from: plan.dataRepresentation) == plan)
    }

    @Test func aPlanWritesAsZwiftAndReadsBack() throws {
        let plan = try read(Self.zwo, .zwo)
        let text = String(
            decoding: try PlanFiles.write(plan, format: .zwo, functionalThresholdPower: 250), as: UTF8.self)
        #expect(
            text.contains(
                "<IntervalsT Repeat=\"5\" OnDuration=\"240\" OffDuration=\"180\" OnPower=\"1.12\" OffPower=\"0.6\"/>"))
        #expect(text.contains("<SteadyState Duration=\"300\" Power=\"0.88\"/>"))
        #expect(text.contains("<FreeRide Duration=\"60\"/>"))
        #expect(text.contains("<name>Sweet spot &amp; more</name>"))
        let back = try read(text, .zwo)
        #expect(
            back.plannedSteps.map { [$0.duration, watts($0)] } == plan.plannedSteps.map { [$0.duration, watts($0)] })
    }

    @Test func ergAndMrcFilesReadAndWrite() throws {
        let erg = """
            [COURSE HEADER]
            VERSION = 2
            UNITS = ENGLISH
            DESCRIPTION = Over-unders
            MINUTES WATTS
            [END COURSE HEADER]
            [COURSE DATA]
            0.00\t100
            5.00\t100
            5.00\t250
            9.00\t250
            9.00\t150
            10.50\t150
            12.50\t100
            [END COURSE DATA]
            """
        let plan = try read(erg, .erg, ftp: nil)
        let steps = plan.plannedSteps
        #expect(steps.map { watts($0) } == [100, 250, 150, 137.5, 112.5])
        #expect(steps.map(\.duration) == [300, 240, 90, 60, 60])
        let written = String(decoding: try PlanFiles.write(plan, format: .erg), as: UTF8.self)
        #expect(written.contains("MINUTES WATTS"))
        #expect(written.contains("0\t100\n5\t100\n5\t250\n9\t250\n"))
        #expect(
            try read(written, .erg, ftp: nil).plannedSteps.map { [$0.duration, watts($0)] }
                == steps.map { [$0.duration, watts($0)] })
        // As .mrc at FTP 250: percent.
        let mrc = String(
            decoding: try PlanFiles.write(plan, format: .mrc, functionalThresholdPower: 250), as: UTF8.self)
        #expect(mrc.contains("MINUTES PERCENT") && mrc.contains("5\t100\n9\t100\n"))
        #expect(try read(mrc, .mrc, ftp: 250).plannedSteps.map { watts($0) } == steps.map { watts($0) })
    }

    @Test func whatAFormatCannotSayIsRefusedWithOneSentence() throws {
        let heartRate = WorkoutPlan(
            .custom(
                CustomWorkout(
                    activity: .cycling,
                    blocks: [
                        IntervalBlock(steps: [IntervalStep(.work, goal: .time(5, .minutes), alert: .heartRate(zone: 2))]
                        )
                    ])))
        for format in [PlanFileFormat.erg, .zwo] {
            #expect(throws: PlanFileError.self) {
                try PlanFiles.write(heartRate, format: format, functionalThresholdPower: 250)
            }
        }
        let distance = WorkoutPlan(
            .custom(
                CustomWorkout(
                    activity: .cycling,
                    blocks: [IntervalBlock(steps: [IntervalStep(.work, goal: .distance(5, .kilometers))])])))
        #expect(throws: PlanFileError.self) { try PlanFiles.write(distance, format: .erg) }
        // A relative format without FTP.
        #expect(throws: PlanFileError.self) { try read(Self.zwo, .zwo, ftp: nil) }
        // A range target is written at its middle.
        let range = WorkoutPlan(
            .custom(
                CustomWorkout(
                    activity: .cycling,
                    blocks: [
                        IntervalBlock(steps: [
                            IntervalStep(.work, goal: .time(1, .minutes), alert: .power(200 ... 260, unit: .watts))
                        ])
                    ])))
        #expect(String(decoding: try PlanFiles.write(range, format: .erg), as: UTF8.self).contains("0\t230\n1\t230"))
    }

    @Test(arguments: [
        (
            "<workout_file><workout><IntervalsT Repeat=\"0\" OnDuration=\"60\" OffDuration=\"60\" OnPower=\"1\" OffPower=\"0.5\"/></workout></workout_file>",
            "iterations must be 1 to"
        ),
        (
            "<workout_file><workout><IntervalsT Repeat=\"1000000\" OnDuration=\"60\" OffDuration=\"60\" OnPower=\"1\" OffPower=\"0.5\"/></workout></workout_file>",
            "iterations must be 1 to"
        ),
        ("<workout_file><workout></workout></workout_file>", "has no steps"),
        (
            "<workout_file><workout><SteadyState Duration=\"90000\" Power=\"0.8\"/></workout></workout_file>",
            "at most a day"
        ),
        (
            "<workout_file><workout><SteadyState Duration=\"60\" Power=\"400\"/></workout></workout_file>",
            "power target"
        ),
        (
            "<workout_file><workout><SteadyState Duration=\"60\" Power=\"-0.5\"/></workout></workout_file>",
            "power target"
        ),
        ("<workout_file><workout><SteadyState Duration=\"60\"/></workout></workout_file>", "has no Power"),
        ("<workout_file><workout><Jump Duration=\"60\"/></workout></workout_file>", "not a Zwift workout step"),
        ("<gpx><trk/></gpx>", "not a Zwift workout"),
        ("<workout_file><workout><SteadyState", "not well-formed XML"),
    ])
    func badZwiftFilesAreRefused(text: String, expected: String) throws {
        do {
            _ = try read(text, .zwo)
            Issue.record("read \(text)")
        } catch {
            #expect(error.description.hasPrefix("plan.zwo"))
            #expect(error.description.contains(expected), "\(error.description)")
        }
    }

    @Test func badErgFilesAreRefused() throws {
        let header = "[COURSE HEADER]\nMINUTES WATTS\n[END COURSE HEADER]\n[COURSE DATA]\n"
        let cases = [
            ("0 100\n1 100\n", "no [COURSE HEADER]"),
            (header + "0\t100\n", "no steps"),
            (header + "0\t100\n1\tabc\n", "not two numbers"),
            (header + "0\t100\n1\t100000\n", "power target"),
            (header + "0\t-10\n1\t-10\n", "power target"),
            (header + "2\t100\n1\t100\n", "goes back in time"),
            (header + "0\t100\n1500\t100\n", "at most a day"),
            ("[COURSE HEADER]\nMINUTES PERCENT\n[END COURSE HEADER]\n[COURSE DATA]\n0 50\n1 50\n", "MINUTES WATTS"),
        ]
        for (text, expected) in cases {
            do {
                _ = try read(text, .erg, ftp: nil)
                Issue.record("read \(text)")
            } catch {
                #expect(error.description.contains(expected), "\(error.description)")
            }
        }
    }
}
