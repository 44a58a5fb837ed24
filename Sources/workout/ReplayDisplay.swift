import Foundation
import OpenHealthKit

/// What `workout replay` shows while it runs: on a terminal, a block of lines redrawn in place four times a
/// second (or a progress bar for instant replays); piped, one plain line per minute of workout time.
final class ReplayDisplay: @unchecked Sendable {
    let replay: WorkoutReplay
    let zones: HeartRateZones
    let instant: Bool
    let terminal: Bool
    private var drawnLines = 0
    private var duration: TimeInterval = 0
    private var lastPosition: TimeInterval = 0
    private var lastPrintedMinute = -1
    private var zoneTimes: [TimeInterval]
    private let bpm = HKUnit.count().unitDivided(by: .minute())

    init(replay: WorkoutReplay, zones: HeartRateZones, instant: Bool, terminal: Bool) {
        self.replay = replay
        self.zones = zones
        self.zoneTimes = [TimeInterval](repeating: 0, count: zones.count)
        self.instant = instant
        self.terminal = terminal
    }

    func begin(summary: FixtureSummary, file: String) {
        duration = summary.duration
        let how = instant ? "instantly" : "at \(Format.number(speedFactor))× speed"
        print("Replaying \(file) (\(summary.header.session.activity), \(Format.duration(summary.duration)), "
              + "\(summary.notifications) notifications from \(summary.header.sensors.map(\.name).joined(separator: ", "))) \(how).")
        if !instant { print("Zones: \(zones.label).") }
        fflush(nil)
    }

    var speedFactor: Double = 1

    /// Redraws until cancelled.
    func run() async {
        while !Task.isCancelled {
            draw()
            do { try await Task.sleep(for: .milliseconds(250)) } catch { return }
        }
    }

    /// Draws the final state once more.
    func finish() {
        draw(final: true)
        if terminal, drawnLines > 0 { print("") }
        fflush(nil)
    }

    private func value(_ identifier: HKQuantityTypeIdentifier, _ unit: HKUnit) -> Double? {
        replay.builder.statistics(for: HKQuantityType(identifier))?.mostRecentQuantity()?.doubleValue(for: unit)
    }

    private func draw(final: Bool = false) {
        let position = replay.position
        let heartRate = value(.heartRate, bpm)
        let zone = heartRate.map { zones.zone(for: $0) }
        if let zone, position > lastPosition { zoneTimes[zone] += position - lastPosition }
        lastPosition = position
        let elapsed = Format.duration(replay.builder.elapsedTime)
        let activity = replay.session.currentActivity.workoutConfiguration.activityType.name
        let heart = heartRate.map { "\(Int($0)) bpm" } ?? "–"
        let power = value(.cyclingPower, .watt()).map { "\(Int($0)) W" } ?? "–"
        let cadence = value(.cyclingCadence, .count().unitDivided(by: .minute())).map { "\(Int($0.rounded())) rpm" } ?? "–"
        if !terminal {
            guard !instant else { return }
            let minute = Int(position / 60)
            guard minute > lastPrintedMinute else { return }
            lastPrintedMinute = minute
            print("\(Format.duration(position))  \(activity)  elapsed \(elapsed)  heart rate \(heart)  power \(power)  cadence \(cadence)"
                  + (zone.map { "  zone \(zones.name($0))" } ?? ""))
            fflush(nil)
            return
        }
        var lines: [String]
        if instant {
            let fraction = duration > 0 ? min(position / duration, 1) : 1
            lines = ["[\(bar(fraction, width: 40))] \(Int((fraction * 100).rounded()))%  \(Format.duration(position)) / "
                     + "\(Format.duration(duration))  \(replay.readings) readings"]
        } else {
            lines = ["\(activity)   elapsed \(elapsed)   heart rate \(heart)   power \(power)   cadence \(cadence)"]
            if let zone {
                let fraction = heartRate.map { min(max(($0 - zones.low) / (zones.high - zones.low), 0), 1) } ?? 0
                lines.append("zone \(zones.name(zone)) (\(zones.range(of: zone)) bpm)  [\(bar(fraction, width: 30))]")
            } else {
                lines.append("zone –")
            }
            lines.append(zones.indices.map { "\(zones.name($0)) \(Format.duration(zoneTimes[$0]))" }.joined(separator: "  "))
        }
        var output = drawnLines > 0 ? "\u{1B}[\(drawnLines)A" : ""
        for line in lines { output += "\r\u{1B}[2K" + line + "\n" }
        drawnLines = lines.count
        FileHandle.standardOutput.write(Data(output.utf8))
        _ = final
    }

    private func bar(_ fraction: Double, width: Int) -> String {
        let filled = Int((fraction * Double(width)).rounded())
        return String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
    }
}
