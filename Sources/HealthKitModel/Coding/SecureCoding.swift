import Foundation

/// What every `NSSecureCoding` conformance here shares.
///
/// HealthKit's model classes adopt `NSSecureCoding` so apps can keep them (an `HKQueryAnchor` between launches) or
/// send them (the multidevice sample sends `HKStatistics` and `HKQuantity`) with `NSKeyedArchiver`. OpenHealthKit's
/// do too, on swift-corelibs-foundation's archiver. The archive's layout is OpenHealthKit's own (HealthKit's is
/// private), so an archive made by HealthKit does not open here, nor the reverse. A damaged archive makes the
/// unarchiver fail with an error naming the class, never a crash.
package enum SecureCoding {
    /// Fails decoding with a readable reason (swift-corelibs-foundation: `failWithError`).
    package static func fail(_ coder: NSCoder, _ what: String) {
        coder.failWithError(
            NSError(
                domain: NSCocoaErrorDomain, code: CocoaError.coderReadCorrupt.rawValue,
                userInfo: [NSLocalizedDescriptionKey: "The archive of \(what) is damaged."]))
    }

    /// An optional object: swift-corelibs-foundation's unarchiver fails the whole archive when `decodeObject`
    /// asks for a key that is absent, so absent keys are checked first.
    package static func decodeOptional<T: NSObject & NSSecureCoding>(
        _ type: T.Type, _ coder: NSCoder, _ key: String
    ) -> T? {
        guard coder.containsValue(forKey: key) else { return nil }
        return coder.decodeObject(of: T.self, forKey: key)
    }

    package static func decodeString(_ coder: NSCoder, _ key: String) -> String? {
        decodeOptional(NSString.self, coder, key).map { String($0) }
    }

    package static func decodeDate(_ coder: NSCoder, _ key: String) -> Date? {
        guard coder.containsValue(forKey: key) else { return nil }
        return Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: key))
    }

    package static func encode(_ date: Date?, _ coder: NSCoder, _ key: String) {
        if let date { coder.encode(date.timeIntervalSinceReferenceDate, forKey: key) }
    }

    package static func decodeUUID(_ coder: NSCoder, _ key: String) -> UUID? {
        decodeString(coder, key).flatMap(UUID.init(uuidString:))
    }

    /// Metadata travels as the store writes it (JSON of strings, numbers, booleans, dates and quantities).
    package static func encodeMetadata(_ metadata: [String: Any]?, _ coder: NSCoder) {
        if let text = try? MetadataCoding.encode(metadata) { coder.encode(text as NSString, forKey: "metadata") }
    }

    /// The metadata, `.some(nil)` when there was none, nil when it is damaged.
    package static func decodeMetadata(_ coder: NSCoder) -> [String: Any]?? {
        guard let text = decodeString(coder, "metadata") else { return .some(nil) }
        guard let metadata = try? MetadataCoding.decode(text) else { return nil }
        return .some(metadata)
    }
}

extension HKUnit {
    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) { coder.encode(unitString as NSString, forKey: "unitString") }

    /// The unit an archive holds, or nil (and the coder failed) if it is damaged.
    package static func decodeUnit(_ coder: NSCoder) -> HKUnit? {
        guard let string = SecureCoding.decodeString(coder, "unitString"), let unit = try? HKUnit.parse(string) else {
            SecureCoding.fail(coder, "an HKUnit")
            return nil
        }
        return unit
    }
}

extension HKQuantity {
    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(unit, forKey: "unit")
        coder.encode(value, forKey: "value")
    }

    package static func decodeFields(_ coder: NSCoder) -> (HKUnit, Double)? {
        guard let unit = coder.decodeObject(of: HKUnit.self, forKey: "unit"), coder.containsValue(forKey: "value")
        else {
            SecureCoding.fail(coder, "an HKQuantity")
            return nil
        }
        return (unit, coder.decodeDouble(forKey: "value"))
    }
}
