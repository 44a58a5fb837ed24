import Foundation
import HealthKitModel
import WorkoutEngine

/// The person's biological sex. HealthKit: HKBiologicalSex.
public enum HKBiologicalSex: Int, Sendable, Hashable { case notSet = 0, female, male, other }
/// The person's blood type. HealthKit: HKBloodType.
public enum HKBloodType: Int, Sendable, Hashable {
    case notSet = 0, aPositive, aNegative, bPositive, bNegative, abPositive, abNegative, oPositive, oNegative
}
/// The person's skin type. HealthKit: HKFitzpatrickSkinType.
public enum HKFitzpatrickSkinType: Int, Sendable, Hashable { case notSet = 0, I, II, III, IV, V, VI }
/// Whether the person uses a wheelchair. HealthKit: HKWheelchairUse.
public enum HKWheelchairUse: Int, Sendable, Hashable { case notSet = 0, no, yes }

/// A biological-sex characteristic. HealthKit: HKBiologicalSexObject.
public final class HKBiologicalSexObject: NSObject, Sendable {
    public let biologicalSex: HKBiologicalSex
    init(_ value: HKBiologicalSex) { biologicalSex = value }
}
/// A blood-type characteristic. HealthKit: HKBloodTypeObject.
public final class HKBloodTypeObject: NSObject, Sendable {
    public let bloodType: HKBloodType
    init(_ value: HKBloodType) { bloodType = value }
}
/// A skin-type characteristic. HealthKit: HKFitzpatrickSkinTypeObject.
public final class HKFitzpatrickSkinTypeObject: NSObject, Sendable {
    public let skinType: HKFitzpatrickSkinType
    init(_ value: HKFitzpatrickSkinType) { skinType = value }
}
/// A wheelchair-use characteristic. HealthKit: HKWheelchairUseObject.
public final class HKWheelchairUseObject: NSObject, Sendable {
    public let wheelchairUse: HKWheelchairUse
    init(_ value: HKWheelchairUse) { wheelchairUse = value }
}
/// The move mode of the activity rings. HealthKit: HKActivityMoveModeObject.
public final class HKActivityMoveModeObject: NSObject, Sendable {
    public let activityMoveMode: HKActivityMoveMode
    init(_ value: HKActivityMoveMode) { activityMoveMode = value }
}

extension HKHealthStore {
    /// The person's date of birth (year, month, day, in the Gregorian calendar): the one in their profile
    /// (`workout profile --born`), or empty components when none is set or the client may not read
    /// `.dateOfBirth` (read denial looks like no data). HealthKit: HKHealthStore.dateOfBirthComponents().
    public func dateOfBirthComponents() throws -> DateComponents {
        // HealthKit's call is synchronous: its two reads block the caller.
        let backend = try backend()
        let readable = try backend.readableTypesBlocking(client: clientIdentifier)
        guard readable.contains(HKCharacteristicTypeIdentifier.dateOfBirth.rawValue) else {
            return DateComponents()
        }
        guard var components = try backend.workoutProfileBlocking().dateOfBirth else {
            return DateComponents()
        }
        components.calendar = Calendar(identifier: .gregorian)
        return components
    }

    /// `.notSet`: nothing on Linux records it (the profile holds only what zones need). HealthKit: biologicalSex().
    public func biologicalSex() throws -> HKBiologicalSexObject {
        _ = try backend()
        return HKBiologicalSexObject(.notSet)
    }

    /// `.notSet`: nothing on Linux records it. HealthKit: HKHealthStore.bloodType().
    public func bloodType() throws -> HKBloodTypeObject {
        _ = try backend()
        return HKBloodTypeObject(.notSet)
    }

    /// `.notSet`: nothing on Linux records it. HealthKit: HKHealthStore.fitzpatrickSkinType().
    public func fitzpatrickSkinType() throws -> HKFitzpatrickSkinTypeObject {
        _ = try backend()
        return HKFitzpatrickSkinTypeObject(.notSet)
    }

    /// `.notSet`: nothing on Linux records it. HealthKit: HKHealthStore.wheelchairUse().
    public func wheelchairUse() throws -> HKWheelchairUseObject {
        _ = try backend()
        return HKWheelchairUseObject(.notSet)
    }

    /// `.activeEnergy`: activity summaries here measure move in active energy. HealthKit: activityMoveMode().
    public func activityMoveMode() throws -> HKActivityMoveModeObject {
        _ = try backend()
        return HKActivityMoveModeObject(.activeEnergy)
    }

    /// The units to show each type in, from the current locale: kilometres or miles (yards for swims), km/hr or
    /// mi/hr, kcal, count/min for heart rate and cadence, W for power; the type's storage unit otherwise. There is
    /// no Health app setting here; this is OpenHealthKit's table. HealthKit: HKHealthStore.preferredUnits(for:).
    public func preferredUnits(for quantityTypes: Set<HKQuantityType>) async throws -> [HKQuantityType: HKUnit] {
        _ = try backend()
        let metric = Locale.current.measurementSystem == .metric
        var units: [HKQuantityType: HKUnit] = [:]
        for type in quantityTypes {
            switch HKQuantityTypeIdentifier(rawValue: type.identifier) {
            case .distanceWalkingRunning, .distanceCycling, .distanceWheelchair, .distanceDownhillSnowSports,
                .distanceCrossCountrySkiing, .distancePaddleSports, .distanceRowing, .distanceSkatingSports:
                units[type] = HKUnit(from: metric ? "km" : "mi")
            case .distanceSwimming: units[type] = HKUnit(from: metric ? "m" : "yd")
            case .cyclingSpeed, .runningSpeed: units[type] = HKUnit(from: metric ? "km/hr" : "mi/hr")
            case .activeEnergyBurned, .basalEnergyBurned: units[type] = .kilocalorie()
            case .heartRate, .restingHeartRate, .cyclingCadence: units[type] = HKUnit(from: "count/min")
            default: units[type] = type.storageUnit
            }
        }
        return units
    }

    public func preferredUnits(
        for quantityTypes: Set<HKQuantityType>,
        completion: @escaping @Sendable ([HKQuantityType: HKUnit], (any Error)?) -> Void
    ) {
        report({ try await self.preferredUnits(for: quantityTypes) }) { result in
            switch result {
            case .success(let units): completion(units, nil)
            case .failure(let error): completion([:], error)
            }
        }
    }

    /// Fails with `errorHealthDataUnavailable`: there is no paired Apple Watch to launch on Linux. A companion here
    /// is another store object that mirrors a session (see the README). HealthKit: HKHealthStore.startWatchApp(toHandle:).
    public func startWatchApp(toHandle workoutConfiguration: HKWorkoutConfiguration) async throws {
        throw HKError(
            .errorHealthDataUnavailable,
            "There is no paired Apple Watch to start an app on; OpenHealthKit runs on Linux.")
    }

    public func startWatchApp(
        with workoutConfiguration: HKWorkoutConfiguration,
        completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        report({ try await self.startWatchApp(toHandle: workoutConfiguration) }) { result in
            let (success, error) = result.healthKitPair
            completion(success, error)
        }
    }
}
