import Foundation

extension PlanRunner {
    /// One step as the runner walks it: its name, when it ends, the power it asks for and what it watches.
    /// OpenHealthKit.
    ///
    /// OpenWorkoutKit makes these from a `WorkoutPlan` (`WorkoutPlan.runnerSteps`); the runner knows no file
    /// format and no WorkoutKit type.
    public struct Step: Sendable, Equatable {
        /// When a step ends.
        public enum Goal: Sendable, Equatable {
            /// At the lap key (or a skip).
            case open
            /// After this much moving time, in seconds.
            case time(TimeInterval)
            /// After this distance, in metres.
            case distance(Double)
            /// After this active energy, in kilocalories.
            case energy(Double)
        }

        /// The power a step asks for, which becomes a trainer's ERG target: a range's middle, a threshold's value,
        /// a zone's middle (of the workout's power zones).
        public enum Power: Sendable, Equatable {
            /// Between two powers, in watts.
            case range(ClosedRange<Double>)
            /// At least this power, in watts.
            case threshold(Double)
            /// A power zone, from 1.
            case zone(Int)
        }

        /// A figure a step watches (heart rate, cadence or speed): out of its range, the runner says so.
        public struct Alert: Sendable, Equatable {
            /// What is watched, and its unit.
            public enum Quantity: String, Sendable, Equatable {
                /// Heart rate, count/min.
                case heartRate = "heart rate"
                /// Cadence, count/min.
                case cadence
                /// Speed, m/s.
                case speed
            }

            /// Whether the current value or the step's average is compared.
            public enum Metric: Sendable, Equatable {
                case current
                case average
            }

            /// The values allowed.
            public enum Bound: Sendable, Equatable {
                /// Between two values.
                case range(ClosedRange<Double>)
                /// At least this value.
                case threshold(Double)
                /// A heart-rate zone, from 1 (of the workout's heart-rate zones).
                case zone(Int)
            }

            public var quantity: Quantity
            public var bound: Bound
            public var metric: Metric

            public init(quantity: Quantity, bound: Bound, metric: Metric = .current) {
                self.quantity = quantity
                self.bound = bound
                self.metric = metric
            }
        }

        /// The step's name as shown (`Work 2/5`, a plan's own name for it).
        public var name: String
        public var goal: Goal
        /// The power asked for, nil for a step that asks for none (a free ride).
        public var power: Power?
        public var alerts: [Alert]

        public init(name: String, goal: Goal, power: Power? = nil, alerts: [Alert] = []) {
            self.name = name
            self.goal = goal
            self.power = power
            self.alerts = alerts
        }

        /// The goal in words: `5:00`, `2.0 km`, `50 kcal`, `open (lap key)`.
        public var goalDescription: String {
            switch goal {
            case .open: "open (lap key)"
            case .time(let seconds): PlanRunner.clock(seconds)
            case .distance(let metres):
                metres >= 1000 ? String(format: "%.1f km", metres / 1000) : "\(Int(metres.rounded())) m"
            case .energy(let kcal): "\(Int(kcal.rounded())) kcal"
            }
        }
    }

    /// What the runner is told at each update: the workout's progress and its figures. OpenHealthKit.
    public struct Progress: Sendable, Equatable {
        /// Moving time (not paused) since the workout started, in seconds.
        public var moving: TimeInterval
        /// Distance since the start, in metres.
        public var distance: Double
        /// Active energy since the start, in kilocalories.
        public var energy: Double
        /// The 3-second power in watts: a power meter's when there is one besides the trainer.
        public var power: Double?
        /// Heart rate and cadence in count/min, speed in m/s.
        public var heartRate: Double?
        public var cadence: Double?
        public var speed: Double?

        public init(
            moving: TimeInterval, distance: Double = 0, energy: Double = 0, power: Double? = nil,
            heartRate: Double? = nil, cadence: Double? = nil, speed: Double? = nil
        ) {
            self.moving = moving
            self.distance = distance
            self.energy = energy
            self.power = power
            self.heartRate = heartRate
            self.cadence = cadence
            self.speed = speed
        }
    }

    /// How the runner turns steps into targets. OpenHealthKit.
    public struct Settings: Sendable, Equatable {
        /// Seconds over which the ERG target moves from the previous step's to the new step's (0: at once).
        public var rampDuration: TimeInterval = 3
        /// The trainer's supported power range, in watts: a target outside it is clamped, with a note.
        public var powerRange: ClosedRange<Double> = 0 ... 2000
        /// Upper thresholds of the workout's power zones (W) and heart-rate zones (count/min), for zone targets.
        public var powerZoneBoundaries: [Double] = []
        public var heartRateZoneBoundaries: [Double] = []
        /// Power match: correct the ERG target so that ``Progress/power`` (a power meter's) reads the target.
        public var powerMatch = false
        /// Power match's integral gain: the correction (a fraction of the target) moves by this much per second
        /// per unit of relative error.
        public var powerMatchGain = 0.03
        /// Power match's bound: the correction never exceeds this fraction of the target either way.
        public var powerMatchLimit = 0.15
        /// Seconds after a step's ramp before power match corrects (the trainer is still getting there).
        public var powerMatchSettle: TimeInterval = 5
        /// Seconds into a step before its alerts are checked (a heart rate takes time to follow).
        public var alertGrace: TimeInterval = 10

        public init() {}
    }

    /// Why a step ended.
    public enum EndReason: String, Sendable, Equatable {
        /// Its goal was reached.
        case goal
        /// The lap key ended it (an open step).
        case lap
        /// It was skipped.
        case skipped
        /// The workout ended during it.
        case workoutEnded = "workout ended"
    }

    /// What happened, for the recording (segments) and the person (notes, alerts). OpenHealthKit.
    public enum Event: Sendable, Equatable {
        /// A step began.
        case stepStarted(index: Int, at: Date)
        /// A step ended; its segment runs from `start` to `end`.
        case stepEnded(index: Int, start: Date, end: Date, reason: EndReason)
        /// The last step ended: the plan is done (the workout goes on).
        case finished(at: Date)
        /// A step's target is outside the trainer's range: `requested` W is held at `held` W.
        case targetClamped(index: Int, requested: Double, held: Double)
        /// A zone target with no such zone (no FTP, or fewer zones): the step runs without a power target.
        case noSuchZone(index: Int, zone: Int)
        /// A watched figure left its range (`outOfRange`) or came back.
        case alert(index: Int, Step.Alert, value: Double, outOfRange: Bool, at: Date)
    }

    /// Where the plan stands: the step's figures a view shows. OpenHealthKit.
    public struct Status: Sendable, Equatable, Codable {
        /// The step under way (from 0) and how many there are.
        public var index: Int
        public var count: Int
        public var name: String
        /// The step's target power with the intensity shift, in watts (nil: none).
        public var target: Double?
        /// What the trainer is asked for now (ramped, matched, clamped), in watts.
        public var ergTarget: Int?
        /// The step's average power so far, in watts.
        public var averagePower: Double?
        /// Seconds, metres or kilocalories left in the step, by its goal; nil for an open step.
        public var timeLeft: TimeInterval?
        public var distanceLeft: Double?
        public var energyLeft: Double?
        /// The next step's name, nil at the last.
        public var next: String?
        /// The intensity shift, in percent.
        public var shift: Int
        /// Power match's correction now, as a fraction of the target.
        public var powerMatchCorrection: Double
        /// Whether the plan is done.
        public var finished: Bool
        /// Why the plan only guides (no trainer under control), when it does; the live recording says.
        public var notice: String? = nil
    }

    /// The metadata key of a plan step's segment event naming the step (a string). OpenHealthKit.
    public static let stepNameMetadataKey = "OpenHealthKitPlanStepName"
    /// The metadata key of a plan step's segment event giving its place in the plan, from 1 (a number).
    public static let stepIndexMetadataKey = "OpenHealthKitPlanStepIndex"
    /// The metadata key of a plan step's segment event giving its target power (a quantity in W), when it has one.
    public static let targetPowerMetadataKey = "OpenHealthKitPlanTargetPower"

    /// Seconds as `m:ss` (or `h:mm:ss`).
    static func clock(_ seconds: TimeInterval) -> String {
        let whole = max(0, Int(seconds.rounded()))
        let (h, m, s) = (whole / 3600, whole / 60 % 60, whole % 60)
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }
}
