import ByteCoding
import Foundation
import OpenHealthKit
import OpenWorkoutKit
import Testing

/// `.workout` files byte for byte: Apple's eight samples read and written again, the same plans built with the
/// initializers, and bad bytes refused with one error.
@Suite(.timeLimit(.minutes(1))) struct WorkoutFileTests {
    @Test(arguments: Samples.names) func everySampleReadsAndWritesBackToItsBytes(name: String) throws {
        let bytes = try Samples.bytes(name)
        let plan = try WorkoutPlan(from: bytes)
        #expect(try plan.dataRepresentation == bytes)
    }

    @Test(arguments: Samples.names) func thePlanBuiltFromItsDescriptionIsTheSampleByteForByte(name: String) throws {
        let plan = try #require(Samples.plans[name])
        let bytes = try Samples.bytes(name)
        #expect([UInt8](try plan.dataRepresentation) == [UInt8](bytes))
        #expect(try WorkoutPlan(from: bytes) == plan)
    }

    @Test func thePlansAreTheOnesDescribed() throws {
        let plan = try WorkoutPlan(from: Samples.bytes("custom-hiit-mixed"))
        guard case .custom(let workout) = plan.workout else {
            Issue.record("not a custom workout")
            return
        }
        #expect(workout.displayName == "Pyramid HIIT")
        #expect(workout.blocks.map(\.iterations) == [2, 2])
        #expect(workout.blocks[0].steps[0].step.displayName == "Hard")
        #expect(workout.blocks[0].steps[1].step.displayName == nil)
        #expect(workout.warmup?.goal == .time(5, .minutes))
        #expect(plan.workout.activity == .highIntensityIntervalTraining)
    }

    @Test func anEmptyNameIsKeptApartFromNone() throws {
        var workout = CustomWorkout(
            activity: .running, displayName: "", blocks: [IntervalBlock(steps: [IntervalStep(.work)])])
        let named = try WorkoutPlan(.custom(workout)).dataRepresentation
        workout.displayName = nil
        let unnamed = try WorkoutPlan(.custom(workout)).dataRepresentation
        #expect(named.count == unnamed.count + 2)
        guard case .custom(let back) = try WorkoutPlan(from: named).workout else {
            Issue.record("not custom")
            return
        }
        #expect(back.displayName == "")
    }

    @Test func everyAlertKindReadsBackAsWritten() throws {
        let alerts: [any WorkoutAlert] = [
            .power(zone: 4), .power(200 ... 250, unit: .watts), .power(225, unit: .watts, metric: .average),
            .heartRate(zone: 3), .heartRate(140 ... 160), .speed(3 ... 4, unit: .metersPerSecond),
            .speed(3.5, unit: .metersPerSecond), .speed(30, unit: .kilometersPerHour, metric: .average),
            .cadence(85), .cadence(80 ... 100),
        ]
        for alert in alerts {
            let plan = WorkoutPlan(
                .custom(
                    CustomWorkout(
                        activity: .cycling, location: .indoor,
                        blocks: [IntervalBlock(steps: [IntervalStep(.work, goal: .time(4, .minutes), alert: alert)])]
                    )))
            let bytes = try plan.dataRepresentation
            let back = try WorkoutPlan(from: bytes)
            #expect(back == plan, "\(alert)")
            #expect(try back.dataRepresentation == bytes)
        }
    }

    @Test func aPowerRangeAlertHasTheRepositorysLayout() throws {
        // The layout of FORMAT.md §8 (repo only): target type 4 (current power), kind 2 (range), field 6 holding
        // field 2 {1: {1: watts, 2: 200.0}, 2: {1: watts, 2: 250.0}}.
        let step = WorkoutStep(goal: .open, alert: .power(200 ... 250, unit: .watts))
        let plan = WorkoutPlan(
            .custom(
                CustomWorkout(activity: .cycling, blocks: [IntervalBlock(steps: [IntervalStep(.work, step: step)])])),
            id: UUID(uuidString: "00000000-0000-4000-8000-000000000000")!)
        let bytes = [UInt8](try plan.dataRepresentation)
        let alert: [UInt8] = [
            0x12, 0x22, 0x08, 0x04, 0x10, 0x02, 0x32, 0x1C, 0x12, 0x1A, 0x0A, 0x0B, 0x08, 0x01, 0x11, 0, 0, 0, 0, 0, 0,
            0x69, 0x40, 0x12, 0x0B, 0x08, 0x01, 0x11, 0, 0, 0, 0, 0, 0x40, 0x6F, 0x40,
        ]
        #expect(bytes.firstRange(of: alert) != nil)
    }

    // MARK: Bad bytes

    func error(_ bytes: [UInt8]) -> String? {
        do {
            _ = try WorkoutPlan(from: Data(bytes))
            return nil
        } catch let error as DecodeError {
            return error.description
        } catch {
            return "not a DecodeError: \(error)"
        }
    }

    @Test func badBytesThrowOneClearError() throws {
        let sample = [UInt8](try Samples.bytes("custom-hiit-mixed"))
        #expect(error([])?.contains("empty") == true)
        #expect(error(Array(sample.prefix(100)))?.contains("claims") == true)
        // A tag of wire type 5 (fixed32), which the format never uses.
        #expect(error([0x4D, 0, 0, 0, 0])?.contains("wire type 5") == true)
        // The id as a varint instead of a string.
        #expect(error([0x48, 0x01])?.contains("should be a length-delimited value") == true)
        // Field 12, an unknown workout kind.
        #expect(error(Array(sample.prefix(38)) + [0x62, 0x00])?.contains("no field 12") == true)
        // No workout at all.
        #expect(error(Array(sample.prefix(38)))?.contains("holds no workout") == true)
        // A varint that never ends.
        #expect(error([0xC0, 0x3E] + [UInt8](repeating: 0xFF, count: 11))?.contains("varint") == true)
        // A name that is not UTF-8.
        var bad = sample
        bad[0x2F] = 0xFF
        #expect(error(bad)?.contains("UTF-8") == true)
    }

    func plan(
        iterations: Int, goal: WorkoutGoal = .time(30, .seconds), alert: (any WorkoutAlert)? = nil
    )
        -> WorkoutPlan
    {
        WorkoutPlan(
            .custom(
                CustomWorkout(
                    activity: .cycling,
                    blocks: [
                        IntervalBlock(steps: [IntervalStep(.work, goal: goal, alert: alert)], iterations: iterations)
                    ])))
    }

    /// Writes a plan the writer refuses by building it valid and patching the bytes, as a damaged file would be.
    func patched(_ plan: WorkoutPlan, _ patch: ([UInt8]) -> [UInt8]) throws -> [UInt8] {
        patch([UInt8](try plan.dataRepresentation))
    }

    @Test func absurdValuesAreRefusedWhenReadAndWhenWritten() throws {
        // iterations 0 and 10^6 cannot be written...
        for iterations in [0, 1_000_000] {
            #expect(throws: HKError.self) { try plan(iterations: iterations).dataRepresentation }
        }
        // ...nor read: iterations 7 patched to 0 (`10 07` is the block's last field).
        let zero = try patched(plan(iterations: 7)) { bytes in
            var bytes = bytes
            let index = bytes.lastIndex(of: 0x07)!
            bytes[index] = 0x00
            return bytes
        }
        #expect(error(zero)?.contains("iterations must be 1 to") == true)
        // A step longer than a day, a 100 kW target, a negative target.
        #expect(throws: HKError.self) { try plan(iterations: 1, goal: .time(25, .hours)).dataRepresentation }
        #expect(throws: HKError.self) {
            try plan(iterations: 1, alert: .power(100, unit: .kilowatts)).dataRepresentation
        }
        #expect(throws: HKError.self) { try plan(iterations: 1, alert: .power(-5, unit: .watts)).dataRepresentation }
        let hundredKilowatts = try patched(plan(iterations: 1, alert: .power(1000, unit: .watts))) { bytes in
            let thousand = [UInt8](withUnsafeBytes(of: (1000.0).bitPattern.littleEndian) { Array($0) })
            let big = [UInt8](withUnsafeBytes(of: (100_000.0).bitPattern.littleEndian) { Array($0) })
            var bytes = bytes
            let range = bytes.firstRange(of: thousand)!
            bytes.replaceSubrange(range, with: big)
            return bytes
        }
        #expect(error(hundredKilowatts)?.contains("power target") == true)
        // An energy goal in a custom workout: Apple refuses it (FORMAT.md §9).
        #expect(throws: HKError.self) {
            try WorkoutPlan(
                .custom(
                    CustomWorkout(
                        activity: .running,
                        blocks: [IntervalBlock(steps: [IntervalStep(.work, goal: .energy(100, .kilocalories))])]))
            ).dataRepresentation
        }
        // No steps at all.
        #expect(throws: HKError.self) {
            try WorkoutPlan(.custom(CustomWorkout(activity: .running))).dataRepresentation
        }
    }

    @Test func applesRefusalsAreRefused() throws {
        // FORMAT.md §9: a rowing single-goal workout indoors; a pool-swim goal in a single-goal workout; legs in
        // the order bike, run, swim.
        #expect(!SingleGoalWorkout.supportsGoal(.time(10, .minutes), activity: .rowing, location: .indoor))
        #expect(
            !SingleGoalWorkout.supportsGoal(
                .poolSwimDistanceWithTime(
                    Measurement(value: 100, unit: .meters), Measurement(value: 2, unit: .minutes)),
                activity: .swimming))
        #expect(
            !SwimBikeRunWorkout.supportsActivityOrdering([.cycling(.outdoor), .running(.outdoor), .swimming(.pool)]))
        #expect(
            SwimBikeRunWorkout.supportsActivityOrdering([.running(.outdoor), .cycling(.outdoor), .running(.outdoor)]))
        #expect(!CustomWorkout.supportsGoal(.energy(10, .kilojoules), activity: .running, location: .outdoor))
        #expect(SingleGoalWorkout.supportsGoal(.energy(10, .kilojoules), activity: .running, location: .outdoor))
        #expect(CustomWorkout.supportsAlert(.power(200, unit: .watts), activity: .cycling))
        #expect(!CustomWorkout.supportsAlert(.power(200, unit: .watts), activity: .yoga))
        #expect(!CustomWorkout.supportsAlert(.speed(3, unit: .metersPerSecond), activity: .swimming))
        #expect(CustomWorkout.supportsActivity(.highIntensityIntervalTraining))
        #expect(!PacerWorkout.supportsActivity(.yoga))
        let sbr = WorkoutPlan(.swimBikeRun(SwimBikeRunWorkout(activities: [.cycling(.outdoor), .swimming(.pool)])))
        #expect(throws: HKError.self) { try sbr.dataRepresentation }
    }

    /// Every truncation and every single-byte change of every sample: an error or a plan, never a trap, and a plan
    /// read from damaged bytes writes bytes that read back to the same plan.
    @Test func truncationsAndByteFlipsNeverCrash() throws {
        var decoded = 0
        var refused = 0
        for name in Samples.names {
            let sample = [UInt8](try Samples.bytes(name))
            var variants: [[UInt8]] = (0 ..< sample.count).map { Array(sample.prefix($0)) }
            for index in sample.indices {
                for flip: UInt8 in [0x01, 0x80, 0xFF] {
                    var bytes = sample
                    bytes[index] ^= flip
                    variants.append(bytes)
                }
            }
            for bytes in variants {
                do {
                    let plan = try WorkoutPlan(from: Data(bytes))
                    decoded += 1
                    #expect(try WorkoutPlan(from: plan.dataRepresentation) == plan)
                } catch is DecodeError {
                    refused += 1
                }
            }
        }
        #expect(refused > decoded)
        #expect(decoded > 0)
    }
}
