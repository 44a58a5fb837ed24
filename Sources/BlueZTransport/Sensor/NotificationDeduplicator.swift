import Foundation

/// Recognises notifications delivered twice, so a reading is never recorded twice.
///
/// Two cases are duplicates:
/// * the same bytes on the same characteristic again within `window` seconds of arrival time —
///   far shorter than any fitness sensor's period (1 s for a strap, 0.25 s for a power meter), so
///   only a re-delivery, never a new sample, falls inside it;
/// * the first notification of a characteristic after a reconnect, when its bytes equal the last
///   ones received before the link dropped: sensors re-send the value they hold when a central
///   subscribes, and that value was already recorded.
///
/// Pure: arrival times are passed in, never read.
public struct NotificationDeduplicator: Sendable {
    /// Seconds within which identical bytes are a re-delivery.
    public let window: TimeInterval
    private var last: [UInt16: (bytes: [UInt8], arrival: TimeInterval)] = [:]
    private var seenSinceReconnect: Set<UInt16> = []

    public init(window: TimeInterval = 0.1) { self.window = window }

    /// Records a notification and says whether it repeats one already taken.
    public mutating func isDuplicate(characteristic: UInt16, bytes: [UInt8], at arrival: TimeInterval) -> Bool {
        let firstSinceReconnect = seenSinceReconnect.insert(characteristic).inserted
        if let previous = last[characteristic], previous.bytes == bytes,
            firstSinceReconnect || arrival - previous.arrival < window
        {
            return true
        }
        last[characteristic] = (bytes, arrival)
        return false
    }

    /// Marks a new connection: the next notification of each characteristic is checked against
    /// the last one of the previous connection.
    public mutating func linkRestarted() {
        seenSinceReconnect.removeAll()
    }
}

/// Exponential backoff between reconnection attempts: `initial`, doubling up to `maximum`.
public struct ReconnectBackoff: Sendable {
    public let initial: Duration
    public let maximum: Duration
    private var attempt = 0

    public init(initial: Duration = .milliseconds(250), maximum: Duration = .seconds(30)) {
        self.initial = initial
        self.maximum = max(initial, maximum)
    }

    /// The delay before the next attempt; each call doubles the following one.
    public mutating func next() -> Duration {
        defer { attempt += 1 }
        var delay = initial
        for _ in 0 ..< min(attempt, 32) where delay < maximum { delay *= 2 }
        return min(delay, maximum)
    }

    /// Starts over after a connection that worked.
    public mutating func reset() { attempt = 0 }
}
