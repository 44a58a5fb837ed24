import FitnessSensors

/// One device per measurement: when several sensors give the same quantity (power from a trainer and from pedals,
/// speed and distance from a trainer and a speed sensor, heart rate from two straps), each measurement is taken
/// from one sensor at a time.
///
/// Sensors rank in the order the data source lists them (attached ones first, in the order attached, then the
/// paired ones in the order paired). A reading is taken when no sensor ranked above its own has given the same
/// measurement within `staleAfter` (3 s): the first sensor owns the measurement, the next one with fresh data
/// takes over when it goes stale or disconnects, and the first one takes it back as soon as it delivers again.
/// Energy integrated from power follows power, so distance and energy are never counted twice.
///
/// HealthKit does not document what its data source does with two paired devices of one kind; a watch pairs one
/// strap or power meter per kind, and takes heart rate from the strap over its own sensor while the strap delivers.
/// This rule is that behaviour generalised. A pure value: times are the readings' own (seconds since the reference
/// date).
struct MeasurementOwners: Sendable {
    static let staleAfter: Double = 3

    /// The measurements ranked: a reading's kind.
    enum Measurement: Int, CaseIterable {
        case heartRate, power, cadence, speed, distance

        init?(_ value: SensorReadingValue) {
            switch value {
            case .heartRate: self = .heartRate
            case .power: self = .power
            case .cadence: self = .cadence
            case .speed: self = .speed
            case .distance: self = .distance
            case .battery: return nil
            }
        }
    }

    /// The latest time each channel gave each measurement: `[measurement][channel]`.
    private var lastSeen: [[Double]] = Array(repeating: [], count: Measurement.allCases.count)

    /// Notes that `channel` gave `measurement` at `time`; returns whether the reading is taken.
    mutating func take(_ measurement: Measurement, from channel: Int, at time: Double) -> Bool {
        let m = measurement.rawValue
        if lastSeen[m].count <= channel {
            lastSeen[m].append(contentsOf: repeatElement(-.infinity, count: channel + 1 - lastSeen[m].count))
        }
        lastSeen[m][channel] = time
        for ranked in 0 ..< channel where time - lastSeen[m][ranked] <= Self.staleAfter { return false }
        return true
    }

    /// A channel disconnected: whatever it gave is stale at once.
    mutating func forget(channel: Int) {
        for m in lastSeen.indices where channel < lastSeen[m].count { lastSeen[m][channel] = -.infinity }
    }
}
