import Foundation
import HealthKitModel
import WorkoutEngine

extension HKWorkoutBuilder {
    /// Sets the zones this workout uses for a type, instead of the person's preferred zones; nil removes them.
    ///
    /// Only before `beginCollection(at:)`. The configuration applies to this workout alone: the person's preferred
    /// zones (`HKHealthStore.preferredWorkoutZoneConfiguration(for:)`) never change.
    ///
    /// - Throws: `errorInvalidArgument` once collection has begun, for a type without zones, or for a configuration
    ///   of another type.
    ///
    /// HealthKit: HKWorkoutBuilder.setCustomZoneConfiguration(_:for:).
    public func setCustomZoneConfiguration(
        _ configuration: HKWorkoutZoneConfiguration?,
        for quantityType: HKQuantityType
    ) async throws {
        try Self.checkZoned(quantityType)
        if let configuration, configuration.quantityType != quantityType {
            throw HKError(
                .errorInvalidArgument,
                "The zone configuration is for \(configuration.quantityType.identifier), "
                    + "not \(quantityType.identifier).")
        }
        try withCore { try $0.setCustomZones(configuration, for: quantityType) }
    }

    /// The zones this workout uses for a type: once collection has begun, the configuration in effect; before, the
    /// custom configuration if one is set, else the person's preferred one. Nil when there is none (cycling power
    /// without the person's zones or FTP).
    ///
    /// - Throws: `errorInvalidArgument` for a type without zones; a store error if the preferences cannot be read.
    ///
    /// HealthKit: HKWorkoutBuilder.zoneConfiguration(for:).
    public func zoneConfiguration(for quantityType: HKQuantityType) async throws -> HKWorkoutZoneConfiguration? {
        try await zoneConfigurationNow(for: quantityType)
    }

    private func zoneConfigurationNow(for quantityType: HKQuantityType) async throws -> HKWorkoutZoneConfiguration? {
        try Self.checkZoned(quantityType)
        let (started, inEffect, custom) = withCore { $0.zoneConfigurations(for: quantityType) }
        if started { return inEffect }
        if let custom { return custom }
        return try await healthStore.preferredZoneConfiguration(for: quantityType)
    }

    /// The time in each zone so far for a type, or nil before any sample of it (or when the type has no zones for
    /// this workout). On a live builder, asking also reports a zone gone stale to the delegate.
    ///
    /// HealthKit: HKWorkoutBuilder.zoneGroup(for:).
    public func zoneGroup(for quantityType: HKQuantityType) -> HKWorkoutZoneGroup? {
        let wall = healthStore.wallClock()
        let now = withCore { $0.horizon(wall) }
        checkZones(at: now)
        return withCore { $0.zoneGroup(for: quantityType, at: now) }
    }

    /// Reports a zone gone stale at `now` (a silent strap). Called when asked, and by a live builder's timer.
    func checkZones(at now: Date) {
        let changes = withCore { $0.checkZones(at: now) }
        if !changes.isEmpty { didUpdateZones(changes) }
    }

    /// The configurations collection begins with: custom else preferred, for each zoned type that has one.
    func resolvedZoneConfigurations() async throws -> [HKWorkoutZoneConfiguration] {
        var configurations: [HKWorkoutZoneConfiguration] = []
        for type in HKWorkoutZoneConfiguration.zonedTypes {
            if let configuration = try await zoneConfigurationNow(for: type) { configurations.append(configuration) }
        }
        return configurations
    }

    static func checkZoned(_ type: HKQuantityType) throws {
        guard HKWorkoutZoneConfiguration.zonedTypes.contains(type) else {
            throw HKError(
                .errorInvalidArgument,
                "Workout zones exist for heart rate and cycling power only, not for \(type.identifier).")
        }
    }
}
