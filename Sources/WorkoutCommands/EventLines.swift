import Foundation
import OpenHealthKit

/// The plain lines a piped live view prints for its events (`12:31  lap 3`), shared by `record`'s and `watch`'s
/// monitors: events noted with their dates, sensors found lost or back by comparing their statuses with the last
/// call's, and the lines taken in date order (events of the same date in the order noted).
struct EventLines {
    private var pending: [(date: Date, text: String)] = []
    private var lost: [String: Bool] = [:]

    mutating func note(_ text: String, at date: Date) {
        pending.append((date, text))
    }

    /// Notes each sensor that was lost or came back since the last call: a loss dated when it began, a return when
    /// it is seen (`now`).
    mutating func noteSensors(_ statuses: [HKSensorStatus], at now: Date) {
        for status in statuses {
            let isLost: Bool
            var since = now
            switch status.connection {
            case .lost(let date, _), .reconnecting(let date, _):
                isLost = true
                since = date
            case .connected: isLost = false
            case .connecting: continue
            }
            if lost[status.identifier] ?? false != isLost {
                note("\(status.name) \(isLost ? "lost" : "back")", at: since)
            }
            lost[status.identifier] = isLost
        }
    }

    /// The lines noted since the last call, each with its time since `start`.
    mutating func take(since start: Date) -> [String] {
        defer { pending.removeAll() }
        return pending.enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }
            .map { "\(Format.duration(max(0, $0.element.date.timeIntervalSince(start))))  \($0.element.text)" }
    }
}
