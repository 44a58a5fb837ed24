import FitnessSensors
import Foundation
import HealthKitModel

/// What a live data source collects: the current activity, the capabilities of its sensors, and the app's own
/// choice once it has made one (`enableCollection`/`disableCollection`), with the predicates it gave.
///
/// Owned by the data source until it is attached to a builder, then by the builder's `RecordingCore`: one owner
/// at a time. While attached, the data source forwards the app's changes to the builder and reads the settings
/// back from it; it keeps no copy of its own until it is detached.
package struct CollectionSettings: Sendable {
    package var activity: HKWorkoutActivityType
    package var capabilities = SensorCapabilities()
    /// The app's own set, once it has changed what is collected; nil while HealthKit's defaults apply.
    package var explicitTypes: Set<HKQuantityType>?
    /// `NSPredicate` is not `Sendable`; a predicate is never changed once the app has given it.
    package nonisolated(unsafe) var predicates: [HKQuantityType: NSPredicate] = [:]
    /// `collectsGeneratedTypes`: whether samples the data source computes from other readings are collected (active
    /// energy from power, steps from a foot pod's step cadence), or only what sensors measure.
    package var collectsGeneratedTypes = true

    package init(activity: HKWorkoutActivityType) {
        self.activity = activity
    }

    /// `typesToCollect`: the app's set, or the plan for the activity and the sensors (see `CollectionPlan`).
    package var types: Set<HKQuantityType> {
        explicitTypes ?? CollectionPlan.types(for: activity, sensors: capabilities)
    }

    package mutating func enable(_ type: HKQuantityType, predicate: NSPredicate?) {
        var types = self.types
        types.insert(type)
        explicitTypes = types
        predicates[type] = predicate
    }

    package mutating func disable(_ type: HKQuantityType) {
        var types = self.types
        types.remove(type)
        explicitTypes = types
        predicates.removeValue(forKey: type)
    }

    /// `currentCollectedTypes`: the types of `types` that the connected sensors give samples of now, measured or, while
    /// `collectsGeneratedTypes`, generated (see `ReadingMapper`): heart rate from a strap; power, cadence, speed and
    /// distance of the types the activity uses; steps from step cadence and running stride length from a foot pod;
    /// active energy from power.
    package var currentTypes: Set<HKQuantityType> {
        let activity = self.activity
        var produced: [HKQuantityTypeIdentifier] = []
        if capabilities.contains(.heartRate) { produced.append(.heartRate) }
        if capabilities.contains(.power) {
            produced.append(activity == .running ? .runningPower : .cyclingPower)
            if collectsGeneratedTypes { produced.append(.activeEnergyBurned) }
        }
        if capabilities.contains(.cadence) { produced.append(.cyclingCadence) }
        if capabilities.contains(.speed) {
            switch activity {
            case .running: produced.append(.runningSpeed)
            case .rowing: produced.append(.rowingSpeed)
            default: produced.append(.cyclingSpeed)
            }
        }
        if capabilities.contains(.distance) { produced.append(HKWorkout.distanceType(for: activity)) }
        if capabilities.contains(.steps) {
            produced.append(.runningStrideLength)
            if collectsGeneratedTypes { produced.append(.stepCount) }
        }
        return types.intersection(produced.map { HKQuantityType.interned($0) })
    }

    /// The collected set for the hot path, indexed by type code.
    package var collectedCodes: [Bool] {
        var codes = Array(repeating: false, count: QuantityTypeCatalog.byCode.count)
        for type in types { codes[Int(type.code)] = true }
        return codes
    }
}
