import FitnessSensors
import Foundation

/// The fixtures the project keeps in `fixtures/`, and the long benchmark recording, as reproducible models.
///
/// Every scenario is a timeline of segments (activity, effort as a fraction of heart-rate reserve, power) sampled
/// by ``HeartModel`` and ``DrivetrainModel``: a strap notifies once a second (heart rate and RR intervals), a
/// power meter twice a second (power, crank and wheel revolutions; four times in the benchmark), a speed and
/// cadence sensor once a second. Notifications carry a few milliseconds of jitter, as radio links do.
public enum FixtureScenario: String, CaseIterable, Sendable {
    case run = "run-45min"
    case ride = "ride-90min"
    case triathlon = "triathlon-swim-bike-run"
    case intervals = "intervals-pauses-laps"
    case malformed = "malformed-notifications"
    /// Four sensors for `hours` (the benchmark); not kept in `fixtures/`.
    case benchmark = "benchmark"

    /// The seed each committed fixture was made with.
    public var defaultSeed: UInt64 {
        switch self {
        case .run: 45
        case .ride: 90
        case .triathlon: 3
        case .intervals: 6
        case .malformed: 13
        case .benchmark: 10
        }
    }

    /// The file name in `fixtures/`.
    public var fileName: String { rawValue + ".jsonl" }

    /// The scenarios committed to `fixtures/`.
    public static var committed: [FixtureScenario] { allCases.filter { $0 != .benchmark } }
}

/// One stretch of a scenario.
struct Segment: Sendable {
    var seconds: Int
    /// Fraction of heart-rate reserve the effort asks for (at the start, when it ramps).
    var effort: Double
    /// Watts on the bike, 0 off it.
    var watts: Double
    /// Actions at the start of the segment.
    var actions: [FixtureAction] = []
    /// The effort at the end of the segment, when it ramps there from `effort`.
    var finalEffort: Double?
    /// Whether the power meter is sending (it is on the bike).
    var meterOn: Bool { watts > 0 }

    init(seconds: Int, effort: Double, watts: Double, actions: [FixtureAction] = []) {
        self.seconds = seconds
        self.effort = effort
        self.watts = watts
        self.actions = actions
    }

    /// The effort `offset` seconds in.
    func effort(at offset: Int) -> Double {
        guard let finalEffort, seconds > 1 else { return effort }
        return effort + (finalEffort - effort) * Double(offset) / Double(seconds - 1)
    }
}

extension FixtureScenario {
    /// The scenario as steps: how the committed fixtures and the benchmark's recording are made.
    public func scenario(seed: UInt64? = nil, hours: Double = 10) -> WorkoutScenario {
        let seed = seed ?? defaultSeed
        var scenario: WorkoutScenario
        switch self {
        case .run:
            scenario = WorkoutScenario(name: rawValue, activity: "running", seed: seed) {
                Step.run(minutes: 10, effort: 0.45)
                Step.run(minutes: 25, effort: 0.74)
                Step.run(minutes: 10, effort: 0.40)
            }
        case .malformed:
            scenario = WorkoutScenario(name: rawValue, activity: "running", seed: seed) {
                Step.run(minutes: 10, effort: 0.6)
            }
            scenario.malformedHeartRate = (every: 37, offset: 11)
        case .ride:
            scenario = WorkoutScenario(name: rawValue, activity: "cycling", seed: seed) {
                Step.ride(minutes: 15, watts: 150, effort: 0.5)
                Step.repeat(3) {
                    Step.ride(minutes: 15, watts: 205, effort: 0.68)
                    Step.ride(minutes: 5, watts: 285, effort: 0.86)
                }
                Step.ride(minutes: 15, watts: 125, effort: 0.42)
            }
            // The power meter drops out for 40 s at 50:00.
            .dropout(.powerMeter, at: .seconds(3000), for: .seconds(40))
        case .triathlon:
            scenario = WorkoutScenario(name: rawValue, activity: "swimBikeRun", seed: seed) {
                Step.run(minutes: 15, effort: 0.70).activity("swimming", location: "openWater")
                Step.run(minutes: 3, effort: 0.60).activity("transition")
                Step.ride(minutes: 40, watts: 215, effort: 0.75).activity("cycling")
                Step.run(minutes: 2, effort: 0.65).activity("transition")
                Step.run(minutes: 20, effort: 0.80).activity("running")
            }
        case .intervals:
            scenario = WorkoutScenario(name: rawValue, activity: "cycling", location: "indoor", seed: seed) {
                Step.ride(minutes: 10, watts: 140, effort: 0.5).marker()
                for interval in 0 ..< 5 {
                    Step.ride(minutes: 3, watts: 300, effort: 0.9).lap()
                    Step.easy(minutes: 1).lap()
                    if interval == 1 || interval == 3 {
                        // Off the bike for a minute: the session is paused while the sensors keep sending.
                        Step.pause(minutes: 1)
                    }
                    Step.easy(minutes: 1)
                }
                Step.ride(minutes: 5, watts: 120, effort: 0.4).lap()
            }
        case .benchmark:
            let blocks = Int((hours * 3600 / 1200).rounded(.up))
            scenario = WorkoutScenario(
                name: rawValue, activity: "cycling",
                sensors: [.strap, .armband, .fastPowerMeter, .speedCadence], seed: seed
            ) {
                Step.repeat(blocks) {
                    Step.ride(minutes: 15, watts: 190, effort: 0.6)
                    Step.ride(minutes: 5, watts: 280, effort: 0.85)
                }
            }
            scenario.limit = Int(hours * 3600)
        }
        return scenario
    }
}
