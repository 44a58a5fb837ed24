import Foundation
import HealthKitModel
import WorkoutEngine

/// How often background delivery may wake an app. Raw values as HealthKit's. HealthKit: HKUpdateFrequency.
public enum HKUpdateFrequency: Int, Sendable, Hashable {
    case immediate = 1
    case hourly = 2
    case daily = 3
    case weekly = 4
}

extension HKHealthStore {
    /// Enables background delivery of a type's changes to this client's observer queries. It always succeeds here,
    /// and means **"while this process runs"**: Linux has no system service that would relaunch a program to run
    /// its observer queries, so ``HKObserverQuery``s of a running process are called as changes happen (any
    /// frequency is immediate) and a program that is not running is not woken. The setting lasts as long as this
    /// store object. HealthKit: HKHealthStore.enableBackgroundDelivery(for:frequency:).
    public func enableBackgroundDelivery(for type: HKObjectType, frequency: HKUpdateFrequency) async throws {
        _ = try backend()
        state.withLock { $0.backgroundDelivery[type.identifier] = frequency }
    }

    public func enableBackgroundDelivery(
        for type: HKObjectType, frequency: HKUpdateFrequency,
        withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        report({ try await self.enableBackgroundDelivery(for: type, frequency: frequency) }) { result in
            let (success, error) = result.healthKitPair
            completion(success, error)
        }
    }

    /// Disables background delivery of a type. HealthKit: HKHealthStore.disableBackgroundDelivery(for:).
    public func disableBackgroundDelivery(for type: HKObjectType) async throws {
        _ = state.withLock { $0.backgroundDelivery.removeValue(forKey: type.identifier) }
    }

    public func disableBackgroundDelivery(
        for type: HKObjectType,
        withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        report({ try await self.disableBackgroundDelivery(for: type) }) { result in
            let (success, error) = result.healthKitPair
            completion(success, error)
        }
    }

    /// Disables background delivery of every type. HealthKit: HKHealthStore.disableAllBackgroundDelivery().
    public func disableAllBackgroundDelivery() async throws {
        state.withLock { $0.backgroundDelivery.removeAll() }
    }

    public func disableAllBackgroundDelivery(completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        report({ try await self.disableAllBackgroundDelivery() }) { result in
            let (success, error) = result.healthKitPair
            completion(success, error)
        }
    }

    /// The frequency background delivery was enabled with for a type, if it was. OpenHealthKit.
    public func backgroundDeliveryFrequency(for type: HKObjectType) -> HKUpdateFrequency? {
        state.withLock { $0.backgroundDelivery[type.identifier] }
    }
}
