import Foundation

extension LiveWorkoutSnapshot {
    /// The version of ``jsonData()``'s shape; a field is added without changing it, never removed or renamed.
    public static let jsonVersion = 1

    /// The snapshot as the JSON object a browser page or an overlay reads (`/api/live`; `docs/live-api.md`): plain
    /// numbers in SI units (seconds, count/min, watts, metres per second), zones 0-based, a value that is not there
    /// left out. OpenHealthKit.
    public func jsonData() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Every field is a plain number, string or array of them: encoding cannot fail.
        return (try? encoder.encode(Wire(self))) ?? Data("{}".utf8)
    }

    /// The JSON shape.
    private struct Wire: Encodable {
        struct Zones: Encodable {
            var current: Int?
            var boundaries: [Double]
            var seconds: [Double]?
        }
        struct Sensor: Encodable {
            var name: String, state: String, connection: String, battery: Int?, skinContact: Bool?, dropouts: Int
        }
        struct Trainer: Encodable {
            var name: String
            var targetPower: Int?
            var requestedTargetPower: Int?
            var refusedControl: String?
            var error: String?
        }
        struct Plan: Encodable {
            var step: Int, steps: Int, name: String
            var targetPower: Double?, ergTargetPower: Int?, averagePower: Double?
            var secondsLeft: Double?, metresLeft: Double?, kilocaloriesLeft: Double?
            var next: String?, shiftPercent: Int, finished: Bool, notice: String?
        }
        var version = LiveWorkoutSnapshot.jsonVersion
        var date: Double?
        var activity: String
        var paused: Bool
        var elapsedSeconds: Double, movingSeconds: Double
        var heartRate: Double?, power: Double?, power3s: Double?, cadence: Double?, cadenceUnit: String
        var speed: Double?
        var showsPower: Bool, showsCadence: Bool, showsSpeed: Bool
        var heartRateZones: Zones
        var powerZones: Zones?
        var laps: Int, lapSeconds: Double
        var sensors: [Sensor]
        var trainers: [Trainer]
        var trainerNotice: String?
        var plan: Plan?

        init(_ s: LiveWorkoutSnapshot) {
            date = s.date?.timeIntervalSince1970
            activity = s.activity
            paused = s.paused
            elapsedSeconds = s.elapsed
            movingSeconds = s.moving
            heartRate = s.heartRate
            power = s.power
            power3s = s.power3s
            cadence = s.cadence
            cadenceUnit = s.cadenceUnit
            speed = s.speed
            (showsPower, showsCadence, showsSpeed) = (s.showsPower, s.showsCadence, s.showsSpeed)
            heartRateZones = Zones(current: s.zone, boundaries: s.zoneBoundaries, seconds: s.zoneTimes)
            powerZones =
                s.powerZoneBoundaries.isEmpty
                ? nil : Zones(current: s.powerZone, boundaries: s.powerZoneBoundaries, seconds: nil)
            laps = s.laps
            lapSeconds = s.lapTime
            sensors = s.sensors.map {
                Sensor(
                    name: $0.name, state: $0.state, connection: $0.connection, battery: $0.battery,
                    skinContact: $0.skinContact, dropouts: $0.dropouts)
            }
            trainers = s.machines.map { machine in
                let state = machine.state
                return Trainer(
                    name: machine.name, targetPower: state.targetPower,
                    requestedTargetPower: state.requestedTargetPower,
                    refusedControl: state.refusedControl.map { "\($0)" },
                    error: state.refusedControl == nil ? state.lastError.map { "\($0)" } : nil)
            }
            trainerNotice = s.trainerNotice
            plan = s.plan.map { plan in
                Plan(
                    step: plan.index + 1, steps: plan.count, name: plan.name, targetPower: plan.target,
                    ergTargetPower: plan.ergTarget, averagePower: plan.averagePower, secondsLeft: plan.timeLeft,
                    metresLeft: plan.distanceLeft, kilocaloriesLeft: plan.energyLeft, next: plan.next,
                    shiftPercent: plan.shift, finished: plan.finished, notice: plan.notice)
            }
        }
    }
}
