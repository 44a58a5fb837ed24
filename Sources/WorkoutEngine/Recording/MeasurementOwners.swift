import FitnessSensors
import HealthKitModel

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
package struct MeasurementOwners: Sendable {
    package static let staleAfter: Double = 3

    /// The measurements ranked: a reading's kind.
    package enum Measurement: Int, CaseIterable {
        case heartRate, power, cadence, speed, distance, stepCadence, strideLength, incline

        package init?(_ value: SensorReadingValue) {
            switch value {
            case .heartRate: self = .heartRate
            case .power: self = .power
            case .cadence: self = .cadence
            case .speed: self = .speed
            case .distance: self = .distance
            case .stepCadence: self = .stepCadence
            case .strideLength: self = .strideLength
            case .incline: self = .incline
            case .battery: return nil
            }
        }
    }

    /// Whether a reading ranks after every sensor that is not demoted for its measurement: a fitness machine's own
    /// power estimate ranks after any power meter's, whatever the order of the sensors (a trainer and pedals on one
    /// bike: the pedals measure, the trainer estimates).
    package static func isDemoted(_ value: SensorReadingValue) -> Bool {
        if case .power(let reading) = value { return reading.source == .fitnessMachine }
        return false
    }

    /// The latest time each channel gave each measurement: `[measurement][channel]`.
    private var lastSeen: [[Double]] = Array(repeating: [], count: Measurement.allCases.count)
    /// Whether each channel's latest reading of each measurement was demoted: `[measurement][channel]`.
    private var demoted: [[Bool]] = Array(repeating: [], count: Measurement.allCases.count)

    /// Notes that `channel` gave `measurement` at `time`; returns whether the reading is taken. A demoted reading
    /// (see ``isDemoted(_:)``) ranks after every channel whose reading is not.
    package mutating func take(
        _ measurement: Measurement, from channel: Int, at time: Double, demoted isDemoted: Bool = false
    ) -> Bool {
        let m = measurement.rawValue
        if lastSeen[m].count <= channel {
            lastSeen[m].append(contentsOf: repeatElement(-.infinity, count: channel + 1 - lastSeen[m].count))
            demoted[m].append(contentsOf: repeatElement(false, count: channel + 1 - demoted[m].count))
        }
        lastSeen[m][channel] = time
        demoted[m][channel] = isDemoted
        for other in lastSeen[m].indices where other != channel && time - lastSeen[m][other] <= Self.staleAfter {
            let ranksAbove = demoted[m][other] == isDemoted ? other < channel : isDemoted
            if ranksAbove { return false }
        }
        return true
    }

    /// A channel disconnected: whatever it gave is stale at once.
    package mutating func forget(channel: Int) {
        for m in lastSeen.indices where channel < lastSeen[m].count { lastSeen[m][channel] = -.infinity }
    }
}
