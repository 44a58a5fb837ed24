import Foundation

/// An object that was deleted from the store. HealthKit: HKDeletedObject.
public final class HKDeletedObject: NSObject, @unchecked Sendable {
    public let uuid: UUID
    public let metadata: [String: Any]?

    package init(uuid: UUID, metadata: [String: Any]?) {
        self.uuid = uuid
        self.metadata = metadata
    }
}
