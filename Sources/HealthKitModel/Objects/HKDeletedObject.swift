import Foundation

/// An object that was deleted from the store. HealthKit: HKDeletedObject.
public final class HKDeletedObject: NSObject, Sendable {
    public let uuid: UUID
    /// Not checked by the compiler only because Apple's type is `[String: Any]`: its values are property-list values
    /// and quantities, never changed once the object is made.
    nonisolated(unsafe) public let metadata: [String: Any]?

    package init(uuid: UUID, metadata: [String: Any]?) {
        self.uuid = uuid
        self.metadata = metadata
    }
}
