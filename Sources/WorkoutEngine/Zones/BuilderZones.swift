import Foundation
import HealthKitModel

/// A zone change a live builder reports: the zone left and the zone entered for one type, and the time in each zone
/// then. The group object is made when the change is delivered, on the delegate queue, not under the builder's lock
/// on the path of the reading that made the change.
package struct ZoneChange: Sendable {
    package var configuration: HKWorkoutZoneConfiguration
    package var durations: [Double]
    package var previous: Int?
    package var current: Int?
    package var lastSampleDate: Double?

    package var group: HKWorkoutZoneGroup { HKWorkoutZoneGroup(configuration: configuration, durations: durations) }
}

/// A workout builder's zones: the custom configurations set before collection, then one `ZoneAccumulator` per
/// zoned type (heart rate, cycling power) with the configuration that applies, fed with every sample the builder
/// collects. Guarded by the builder's lock.
///
/// Live reporting: the zone in effect is the latest sample's until its coverage ends (see `ZoneAccumulator`).
/// A change is reported when that zone differs from the one last reported — on a sample, a pause, or when the
/// builder is asked at a later time and the latest value has gone stale — never once per sample.
package struct BuilderZones: Sendable {
    package struct Track: Sendable {
        package let configuration: HKWorkoutZoneConfiguration
        package var accumulator: ZoneAccumulator
        /// The code of the configuration's type, which collected samples carry.
        package let code: UInt16
        /// What was last reported: nil before the first report, `.some(nil)` for "no zone".
        package var reported: Int??
        package var lastSampleDate: Double?
        package var collected = false

        package init(configuration: HKWorkoutZoneConfiguration, accumulator: ZoneAccumulator) {
            self.configuration = configuration
            self.accumulator = accumulator
            self.code = configuration.quantityType.code
        }

        package func group(_ durations: [Double]) -> HKWorkoutZoneGroup {
            HKWorkoutZoneGroup(configuration: configuration, durations: durations)
        }
    }

    /// Custom configurations set with `setCustomZoneConfiguration(_:for:)`, before collection.
    package var custom: [HKQuantityType: HKWorkoutZoneConfiguration] = [:]
    package private(set) var tracks: [Track] = []
    package private(set) var started = false

    /// Collection begins with these configurations.
    package mutating func begin(_ configurations: [HKWorkoutZoneConfiguration], events: [HKWorkoutEvent]) {
        started = true
        let pauses = ZonePause.from(events)
        tracks = configurations.map { configuration in
            var accumulator = ZoneAccumulator(
                boundaries: configuration.boundaryValues,
                maximumHold: ReadingHold.hold(for: configuration.quantityType))
            accumulator.setPauses(pauses)
            return Track(configuration: configuration, accumulator: accumulator)
        }
    }

    /// Adds a zoned type's configuration once collection has begun (the journal records them one by one).
    package mutating func add(_ configuration: HKWorkoutZoneConfiguration, events: [HKWorkoutEvent]) {
        var accumulator = ZoneAccumulator(
            boundaries: configuration.boundaryValues,
            maximumHold: ReadingHold.hold(for: configuration.quantityType))
        accumulator.setPauses(ZonePause.from(events))
        tracks.append(Track(configuration: configuration, accumulator: accumulator))
    }

    /// Feeds collected samples (in time order within the batch) and returns the zone changes they make.
    package mutating func collect(_ samples: [CollectedSample]) -> [ZoneChange] {
        guard !tracks.isEmpty else { return [] }
        var changes: [ZoneChange] = []
        // The usual batch is one or two samples in time order: take them as they are, without copies.
        var latest = -Double.infinity
        var ordered = true
        for position in samples.indices where trackIndex(of: samples[position].typeCode) != nil {
            if samples[position].start < latest {
                ordered = false
                break
            }
            latest = samples[position].start
        }
        if ordered {
            for position in samples.indices {
                if let index = trackIndex(of: samples[position].typeCode) {
                    take(
                        start: samples[position].start, end: samples[position].end, value: samples[position].value,
                        track: index,
                        into: &changes)
                }
            }
        } else {
            for sample in samples.filter({ trackIndex(of: $0.typeCode) != nil }).sorted(by: { $0.start < $1.start }) {
                take(
                    start: sample.start, end: sample.end, value: sample.value, track: trackIndex(of: sample.typeCode)!,
                    into: &changes)
            }
        }
        return changes
    }

    /// The track of a type code.
    private func trackIndex(of code: UInt16) -> Int? {
        tracks.firstIndex { $0.code == code }
    }

    private mutating func take(
        start: Double, end: Double, value: Double, track index: Int, into changes: inout [ZoneChange]
    ) {
        // A value gone stale before this sample is a change to "no zone" first.
        noteCurrentZone(index, at: start, into: &changes)
        guard tracks[index].accumulator.add(start: start, end: end, value: value) else { return }
        tracks[index].collected = true
        tracks[index].lastSampleDate = max(start, end)
        noteCurrentZone(index, at: start, into: &changes)
    }

    /// The workout's events changed: pauses stop zone time (and may end the zone in effect now).
    package mutating func eventsChanged(_ events: [HKWorkoutEvent], now: Date) -> [ZoneChange] {
        let pauses = ZonePause.from(events)
        var changes: [ZoneChange] = []
        for index in tracks.indices {
            tracks[index].accumulator.setPauses(pauses)
            noteCurrentZone(index, at: now.storeValue, into: &changes)
        }
        return changes
    }

    /// Checks, at `now`, whether the zone in effect has gone stale.
    package mutating func check(at now: Date) -> [ZoneChange] {
        var changes: [ZoneChange] = []
        for index in tracks.indices { noteCurrentZone(index, at: now.storeValue, into: &changes) }
        return changes
    }

    private mutating func noteCurrentZone(_ index: Int, at time: Double, into changes: inout [ZoneChange]) {
        // Fields are read in place: copying the track would copy (retain) its accumulator's storage per sample.
        guard tracks[index].collected else { return }
        let current = tracks[index].accumulator.currentZone(at: time)
        let previous: Int?
        switch tracks[index].reported {
        case .none:
            guard current != nil else { return }
            previous = nil
        case .some(let reported):
            guard reported != current else { return }
            previous = reported
        }
        tracks[index].reported = .some(current)
        changes.append(
            ZoneChange(
                configuration: tracks[index].configuration,
                durations: tracks[index].accumulator.durations(at: time), previous: previous,
                current: current, lastSampleDate: tracks[index].lastSampleDate))
    }

    /// The running zone group of a type as of `now`, or nil before any sample of it.
    package func group(for type: HKQuantityType, at now: Date) -> HKWorkoutZoneGroup? {
        guard let track = tracks.first(where: { $0.configuration.quantityType == type }), track.collected else {
            return nil
        }
        return track.group(track.accumulator.durations(at: now.storeValue))
    }

    /// Exact zone groups over a span (the workout, or an activity), or nil when no zoned type was collected.
    package func groups(from start: Date, to end: Date) -> [HKQuantityType: HKWorkoutZoneGroup]? {
        var result: [HKQuantityType: HKWorkoutZoneGroup] = [:]
        for track in tracks where track.collected {
            result[track.configuration.quantityType] = track.group(
                track.accumulator.durations(from: start.storeValue, to: end.storeValue))
        }
        return result.isEmpty ? nil : result
    }
}
