import FitnessSensors
import Foundation
import Testing

@testable import OpenHealthKit

/// Foot pods, treadmills, rowers and trainers through the one path from readings to samples (``ReadingMapper``,
/// ``MeasurementOwners``, ``RecordingCore``). Expected values are worked out by hand in the comments.
@Suite(.timeLimit(.minutes(1))) struct FootPodAndMachineMappingTests {
    func core(_ activity: HKWorkoutActivityType, channels: [String]) -> RecordingCore {
        var core = RecordingCore(activity: activity, deliverySpacing: .milliseconds(1), source: testSource)
        core.updateSettings { $0.capabilities = [.heartRate, .power, .cadence, .speed, .distance, .energy, .steps] }
        for name in channels { _ = core.addChannel(identifier: name, deviceCode: 0) }
        _ = try! core.apply(.began(at: Date(storeValue: 0)), now: .zero)
        return core
    }

    func values(_ core: RecordingCore, _ identifier: HKQuantityTypeIdentifier) -> [Double] {
        core.journal.pending.filter { $0.typeCode == HKQuantityType(identifier).code }.map(\.value)
    }

    /// A foot pod in a run: 3 m/s, 180 steps/min, 1.0 m strides, its total distance, and Stryd-style power.
    @Test func footPodInARun() {
        var core = core(.running, channels: ["pod"])
        var interpreter = SensorReadingInterpreter()
        for second in 0 ... 10 {
            // Total distance in dm: 30 dm a second.
            let rsc = RSCMeasurement(
                speed: 768, cadence: 180, strideLength: 100, totalDistance: UInt32(1000 + 30 * second))
            for reading in interpreter.readings(from: .rscMeasurement(rsc), at: Double(second)) {
                _ = try! core.apply(.reading(reading, channel: 0, time: Double(second)), now: .zero)
            }
            _ = try! core.apply(
                .reading(.power(PowerReading(watts: 250)), channel: 0, time: Double(second)), now: .zero)
        }
        #expect(values(core, .runningSpeed) == Array(repeating: 3, count: 11))
        #expect(values(core, .runningStrideLength) == Array(repeating: 1, count: 11))
        // 10 s at 180 steps/min: 30 steps, 3 a second.
        #expect(values(core, .stepCount).reduce(0, +) == 30)
        #expect(values(core, .distanceWalkingRunning).reduce(0, +) == 30)
        // Power on a foot in a run is running power, never cycling power.
        #expect(values(core, .runningPower).count == 11)
        #expect(values(core, .cyclingPower).isEmpty)
    }

    /// A treadmill at 5 % incline: the running speed samples carry it as metadata.
    @Test func treadmillInclineIsMetadata() throws {
        var core = core(.running, channels: ["treadmill"])
        _ = try! core.apply(.reading(.incline(InclineReading(percent: 5)), channel: 0, time: 0), now: .zero)
        _ = try! core.apply(.reading(.speed(SpeedReading(metresPerSecond: 2.8)), channel: 0, time: 0), now: .zero)
        let sample = try #require(core.journal.pending.first { $0.typeCode == HKQuantityType(.runningSpeed).code })
        let metadata = try MetadataCoding.decode(sample.metadataJSON)
        let incline = try #require(metadata?[OHKMetadataKeyTreadmillIncline] as? HKQuantity)
        #expect(incline.doubleValue(for: .percent()) == 0.05)
    }

    /// A rower: rowing speed and rowing distance.
    @Test func rower() {
        var core = core(.rowing, channels: ["rower"])
        _ = try! core.apply(.reading(.speed(SpeedReading(metresPerSecond: 4.2)), channel: 0, time: 0), now: .zero)
        _ = try! core.apply(
            .reading(.distance(DistanceReading(metres: 0, totalMetres: 0)), channel: 0, time: 0), now: .zero)
        _ = try! core.apply(
            .reading(.distance(DistanceReading(metres: 4.2, totalMetres: 4.2)), channel: 0, time: 1), now: .zero)
        #expect(values(core, .rowingSpeed) == [4.2])
        #expect(values(core, .distanceRowing) == [4.2])
    }

    /// A trainer listed before a power meter: the power meter's readings are taken, the trainer's estimate only
    /// while the meter is silent.
    @Test func powerMeterWinsOverTrainer() {
        var core = core(.cycling, channels: ["trainer", "pedals"])
        for second in 0 ... 5 {
            _ = try! core.apply(
                .reading(.power(PowerReading(watts: 200)), channel: 1, time: Double(second)), now: .zero)
            _ = try! core.apply(
                .reading(.power(PowerReading(watts: 210, source: .fitnessMachine)), channel: 0, time: Double(second)),
                now: .zero)
        }
        #expect(values(core, .cyclingPower) == Array(repeating: 200, count: 6))
        // The pedals fall silent after 5 s; from more than 3 s later (9, 10, 11, 12 s) the trainer's estimate is taken.
        for second in 6 ... 12 {
            _ = try! core.apply(
                .reading(.power(PowerReading(watts: 210, source: .fitnessMachine)), channel: 0, time: Double(second)),
                now: .zero)
        }
        #expect(values(core, .cyclingPower).filter { $0 == 210 }.count == 4)
    }
}
