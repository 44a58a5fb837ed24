import FitnessSensors
import Foundation

/// A workout described step by step — warm-up, intervals, pauses, dropouts — that becomes a fixture of raw BLE
/// notifications, the same bytes for the same seed on every run.
///
/// ```swift
/// let session = WorkoutScenario(name: "vo2-intervals", activity: "cycling", seed: 7) {
///     Step.warmUp(minutes: 10, heartRate: 110 ... 130, watts: 140)
///     Step.repeat(5) {
///         Step.ride(minutes: 3, watts: 300).lap()
///         Step.easy(minutes: 2)
///     }
///     Step.pause(minutes: 1)
///     Step.easy(minutes: 5)
/// }
/// .dropout(.strap, at: .seconds(600 + 2 * 300 + 60), for: .seconds(40))   // 60 s into the third interval
/// try session.writeFixture(to: "/tmp/vo2.jsonl")
/// ```
///
/// The models behind it (``HeartModel``, ``DrivetrainModel``): a strap notifies once a second (heart rate, RR
/// intervals), a power meter twice a second (power, crank and wheel revolutions), with a few milliseconds of radio
/// jitter. Effort is a fraction of heart-rate reserve (rest 55, maximum 188 bpm, Karvonen); a heart-rate range sets
/// an effort that ramps across the step from the range's low end to its high end, and the model's heart follows
/// with its own lag. A power step's effort, unless given, is `0.25 + watts / 500` (at most 0.95). The committed
/// fixtures and the benchmark's recording are scenarios too (``FixtureScenario``).
public struct WorkoutScenario: Sendable {
    public var name: String
    /// The session's activity and location, as the fixture format names them ("cycling", "indoor").
    public var activity: String
    public var location: String
    public var sensors: [ScenarioSensor]
    public var seed: UInt64
    public var steps: [Step]
    /// Sensor dropouts, from the start of the workout.
    public var dropouts: [Dropout] = []
    /// Every `every` seconds, at `offset`, the strap's notification is corrupted (in turn: empty, short, odd RR
    /// bytes, missing energy), to test that malformed data is skipped.
    public var malformedHeartRate: (every: Int, offset: Int)?
    /// Stops the recording after this many seconds, wherever the steps are.
    public var limit: Int?

    public init(
        name: String, activity: String, location: String = "outdoor",
        sensors: [ScenarioSensor]? = nil, seed: UInt64, @StepBuilder steps: () -> [Step]
    ) {
        self.name = name
        self.activity = activity
        self.location = location
        self.seed = seed
        self.steps = steps()
        let onBike = self.steps.flatMap(\.segments).contains { $0.watts > 0 }
        self.sensors = sensors ?? (onBike ? [.strap, .powerMeter] : [.strap])
    }

    /// A sensor that stops notifying and drops its link for a while.
    public struct Dropout: Sendable, Hashable {
        public var sensor: ScenarioSensor
        public var start: Duration
        public var duration: Duration
        public init(sensor: ScenarioSensor, start: Duration, duration: Duration) {
            self.sensor = sensor
            self.start = start
            self.duration = duration
        }

        func contains(_ second: Int) -> Bool {
            let from = Int(start.components.seconds)
            return second >= from && second < from + Int(duration.components.seconds)
        }
    }

    /// Adds a dropout of `sensor` at `start` (from the beginning of the workout) for `duration`.
    public func dropout(_ sensor: ScenarioSensor, at start: Duration, for duration: Duration) -> WorkoutScenario {
        var copy = self
        copy.dropouts.append(Dropout(sensor: sensor, start: start, duration: duration))
        return copy
    }

    /// The whole duration, in seconds.
    public var seconds: Int { min(limit ?? .max, steps.flatMap(\.segments).reduce(0) { $0 + $1.seconds }) }

    /// Writes the fixture.
    ///
    /// - Returns: The number of notifications written.
    @discardableResult
    public func writeFixture(to path: String) throws -> Int {
        try FixtureSynthesizer.generate(self, to: path)
    }
}

/// A sensor of a scenario, with the identity the fixture's header gives it.
public enum ScenarioSensor: String, Sendable, Hashable, CaseIterable {
    /// A chest strap: heart rate and RR intervals once a second, battery every 10 minutes.
    case strap
    /// An optical armband: heart rate only, once a second.
    case armband = "arm"
    /// A power meter: power, crank and wheel revolutions twice a second while on the bike.
    case powerMeter = "power"
    /// A power meter notifying four times a second (the benchmark's).
    case fastPowerMeter = "power4"
    /// A speed and cadence sensor: wheel and crank revolutions twice a second while on the bike.
    case speedCadence = "csc"

    var description: FixtureHeader.SensorDescription {
        var info = DeviceInformation()
        switch self {
        case .strap:
            var strap = FixtureHeader.SensorDescription(
                id: "strap", name: "Polar H10 8A1C2D3E", services: ["180D", "180F", "180A"],
                capabilities: ["heartRate", "rrIntervals", "energy", "battery"])
            info.manufacturerName = "Polar Electro Oy"
            info.modelNumber = "H10"
            info.firmwareRevision = "3.1.1"
            strap.deviceInformation = .init(info)
            return strap
        case .armband:
            return FixtureHeader.SensorDescription(
                id: "arm", name: "Polar Verity Sense", services: ["180D"], capabilities: ["heartRate"])
        case .powerMeter, .fastPowerMeter:
            var meter = FixtureHeader.SensorDescription(
                id: "power", name: "ASSIOMA42", services: ["1818", "180F", "180A"],
                capabilities: ["power", "cadence", "speed", "distance", "energy", "battery"])
            info.manufacturerName = "Favero Electronics"
            info.modelNumber = "Assioma Duo"
            info.firmwareRevision = "4.1.0"
            meter.deviceInformation = .init(info)
            return meter
        case .speedCadence:
            return FixtureHeader.SensorDescription(
                id: "csc", name: "Wahoo RPM", services: ["1816"],
                capabilities: ["cadence", "speed", "distance"])
        }
    }
}

/// One step of a scenario: a stretch at one effort and power, or a block of steps repeated.
public struct Step: Sendable {
    var segments: [Segment]

    init(_ segments: [Segment]) { self.segments = segments }

    /// A stretch of `seconds` at `effort` (0–1 of heart-rate reserve) and `watts` (0: off the bike).
    public static func steady(seconds: Int, effort: Double, watts: Double = 0) -> Step {
        Step([Segment(seconds: seconds, effort: effort, watts: watts)])
    }

    /// A warm-up whose heart rate climbs through `heartRate`.
    public static func warmUp(minutes: Double, heartRate: ClosedRange<Int>, watts: Double = 0) -> Step {
        var segment = Segment(seconds: Int(minutes * 60), effort: effort(bpm: heartRate.lowerBound), watts: watts)
        segment.finalEffort = effort(bpm: heartRate.upperBound)
        return Step([segment])
    }

    /// Riding at `watts`; effort `0.25 + watts / 500` unless given.
    public static func ride(minutes: Double, watts: Double, effort: Double? = nil) -> Step {
        Step([Segment(seconds: Int(minutes * 60), effort: effort ?? min(0.95, 0.25 + watts / 500), watts: watts)])
    }

    /// Easy riding (110 W) or, off the bike, easy running.
    public static func easy(minutes: Double, watts: Double = 110) -> Step {
        Step([Segment(seconds: Int(minutes * 60), effort: 0.35, watts: watts)])
    }

    /// Running at `effort`.
    public static func run(minutes: Double, effort: Double) -> Step {
        Step([Segment(seconds: Int(minutes * 60), effort: effort, watts: 0)])
    }

    /// Off the bike with the session paused while the sensors keep sending; resumed at the end.
    public static func pause(minutes: Double) -> Step {
        Step([Segment(seconds: Int(minutes * 60), effort: 0.2, watts: 0, actions: [.pause])]).then(.resume)
    }

    /// A new activity (a triathlon's leg) from this step on.
    public func activity(_ activity: String, location: String = "outdoor") -> Step {
        at(.beginActivity(activity: activity, location: location))
    }

    /// A lap begins with this step.
    public func lap() -> Step { at(.lap) }

    /// A marker at the start of this step.
    public func marker() -> Step { at(.marker) }

    /// `count` times the steps of `body`.
    public static func `repeat`(_ count: Int, @StepBuilder _ body: () -> [Step]) -> Step {
        let block = body().flatMap(\.segments)
        return Step((0 ..< count).flatMap { _ in block })
    }

    /// Adds an action at the start of the step.
    func at(_ action: FixtureAction) -> Step {
        var copy = self
        if !copy.segments.isEmpty { copy.segments[0].actions.append(action) }
        return copy
    }

    /// Adds an action at the start of whatever follows: the next step's first second.
    func then(_ action: FixtureAction) -> Step {
        var copy = self
        copy.segments.append(Segment(seconds: 0, effort: 0, watts: 0, actions: [action]))
        return copy
    }

    /// The effort at which the model's heart settles at `bpm`.
    static func effort(bpm: Int) -> Double {
        let heart = HeartModel()
        return (Double(bpm) - heart.rest) / (heart.maximum - heart.rest)
    }
}

/// Builds a scenario's steps from a list, with `if`, `for` and loops.
@resultBuilder
public enum StepBuilder {
    public static func buildBlock(_ steps: [Step]...) -> [Step] { steps.flatMap { $0 } }
    public static func buildExpression(_ step: Step) -> [Step] { [step] }
    public static func buildOptional(_ steps: [Step]?) -> [Step] { steps ?? [] }
    public static func buildEither(first steps: [Step]) -> [Step] { steps }
    public static func buildEither(second steps: [Step]) -> [Step] { steps }
    public static func buildArray(_ steps: [[Step]]) -> [Step] { steps.flatMap { $0 } }
}
