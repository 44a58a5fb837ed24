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
struct Segment {
    var seconds: Int
    /// Fraction of heart-rate reserve the effort asks for.
    var effort: Double
    /// Watts on the bike, 0 off it.
    var watts: Double
    /// Actions at the start of the segment.
    var actions: [FixtureAction] = []
    /// Whether the power meter is sending (it is on the bike).
    var meterOn: Bool { watts > 0 }
}

extension FixtureScenario {
    var session: FixtureHeader.Session {
        switch self {
        case .run, .malformed: .init(activity: "running", location: "outdoor")
        case .ride, .benchmark: .init(activity: "cycling", location: "outdoor")
        case .triathlon: .init(activity: "swimBikeRun", location: "outdoor")
        case .intervals: .init(activity: "cycling", location: "indoor")
        }
    }

    func segments(hours: Double) -> [Segment] {
        switch self {
        case .run:
            return [Segment(seconds: 600, effort: 0.45, watts: 0), Segment(seconds: 1500, effort: 0.74, watts: 0),
                    Segment(seconds: 600, effort: 0.40, watts: 0)]
        case .malformed:
            return [Segment(seconds: 600, effort: 0.6, watts: 0)]
        case .ride:
            var ride = [Segment(seconds: 900, effort: 0.5, watts: 150)]
            for _ in 0 ..< 3 { ride += [Segment(seconds: 900, effort: 0.68, watts: 205), Segment(seconds: 300, effort: 0.86, watts: 285)] }
            return ride + [Segment(seconds: 900, effort: 0.42, watts: 125)]
        case .triathlon:
            return [
                Segment(seconds: 900, effort: 0.70, watts: 0, actions: [.beginActivity(activity: "swimming", location: "openWater")]),
                Segment(seconds: 180, effort: 0.60, watts: 0, actions: [.beginActivity(activity: "transition", location: "outdoor")]),
                Segment(seconds: 2400, effort: 0.75, watts: 215, actions: [.beginActivity(activity: "cycling", location: "outdoor")]),
                Segment(seconds: 120, effort: 0.65, watts: 0, actions: [.beginActivity(activity: "transition", location: "outdoor")]),
                Segment(seconds: 1200, effort: 0.80, watts: 0, actions: [.beginActivity(activity: "running", location: "outdoor")]),
            ]
        case .intervals:
            var session = [Segment(seconds: 600, effort: 0.5, watts: 140, actions: [.marker])]
            for interval in 0 ..< 5 {
                session.append(Segment(seconds: 180, effort: 0.9, watts: 300, actions: [.lap]))
                session.append(Segment(seconds: 60, effort: 0.35, watts: 110, actions: [.lap]))
                if interval == 1 || interval == 3 {
                    // Off the bike for a minute: the session is paused while the sensors keep sending.
                    session.append(Segment(seconds: 60, effort: 0.2, watts: 0, actions: [.pause]))
                    session.append(Segment(seconds: 60, effort: 0.35, watts: 110, actions: [.resume]))
                } else {
                    session.append(Segment(seconds: 60, effort: 0.35, watts: 110))
                }
            }
            return session + [Segment(seconds: 300, effort: 0.4, watts: 120, actions: [.lap])]
        case .benchmark:
            let blocks = Int((hours * 3600 / 1200).rounded(.up))
            return (0 ..< blocks).flatMap { _ in
                [Segment(seconds: 900, effort: 0.6, watts: 190), Segment(seconds: 300, effort: 0.85, watts: 280)]
            }
        }
    }

    var sensors: [FixtureHeader.SensorDescription] {
        var strap = FixtureHeader.SensorDescription(
            id: "strap", name: "Polar H10 8A1C2D3E", services: ["180D", "180F", "180A"],
            capabilities: ["heartRate", "rrIntervals", "energy", "battery"])
        var info = DeviceInformation()
        info.manufacturerName = "Polar Electro Oy"
        info.modelNumber = "H10"
        info.firmwareRevision = "3.1.1"
        strap.deviceInformation = .init(info)
        var meter = FixtureHeader.SensorDescription(
            id: "power", name: "ASSIOMA42", services: ["1818", "180F", "180A"],
            capabilities: ["power", "cadence", "speed", "distance", "energy", "battery"])
        info = DeviceInformation()
        info.manufacturerName = "Favero Electronics"
        info.modelNumber = "Assioma Duo"
        info.firmwareRevision = "4.1.0"
        meter.deviceInformation = .init(info)
        switch self {
        case .run, .malformed: return [strap]
        case .ride, .triathlon, .intervals: return [strap, meter]
        case .benchmark:
            let arm = FixtureHeader.SensorDescription(id: "arm", name: "Polar Verity Sense", services: ["180D"],
                                                      capabilities: ["heartRate"])
            let csc = FixtureHeader.SensorDescription(id: "csc", name: "Wahoo RPM", services: ["1816"],
                                                      capabilities: ["cadence", "speed", "distance"])
            return [strap, arm, meter, csc]
        }
    }
}
