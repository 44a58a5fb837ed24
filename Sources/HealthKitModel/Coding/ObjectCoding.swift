import Foundation

// NSSecureCoding for HKObject, HKSample and the values they hold (devices, sources). The archive's keys are
// OpenHealthKit's; see SecureCoding.

extension HKObject {
    public static var supportsSecureCoding: Bool { true }

    /// What every object archives.
    package struct ArchivedObject {
        package var uuid: UUID
        package var metadata: [String: Any]?
        package var device: HKDevice?
        package var sourceRevision: HKSourceRevision
    }

    package func encodeObjectFields(_ coder: NSCoder) {
        coder.encode(uuid.uuidString as NSString, forKey: "uuid")
        SecureCoding.encodeMetadata(metadata, coder)
        if let device { coder.encode(device, forKey: "device") }
        coder.encode(sourceRevision, forKey: "sourceRevision")
    }

    package static func decodeObjectFields(_ coder: NSCoder) -> ArchivedObject? {
        guard let uuid = SecureCoding.decodeUUID(coder, "uuid"),
            case .some(let metadata) = SecureCoding.decodeMetadata(coder),
            let revision = coder.decodeObject(of: HKSourceRevision.self, forKey: "sourceRevision")
        else {
            SecureCoding.fail(coder, "an HKObject")
            return nil
        }
        return ArchivedObject(
            uuid: uuid, metadata: metadata, device: SecureCoding.decodeOptional(HKDevice.self, coder, "device"),
            sourceRevision: revision)
    }
}

extension HKSample {
    package struct ArchivedSample {
        package var object: ArchivedObject
        package var type: HKSampleType
        package var start: Date
        package var end: Date
    }

    package func encodeSampleFields(_ coder: NSCoder) {
        coder.encode(sampleType, forKey: "sampleType")
        SecureCoding.encode(startDate, coder, "startDate")
        SecureCoding.encode(endDate, coder, "endDate")
    }

    package static func decodeSampleFields(_ coder: NSCoder) -> ArchivedSample? {
        guard let object = decodeObjectFields(coder),
            let type = coder.decodeObject(of: HKSampleType.self, forKey: "sampleType"),
            let start = SecureCoding.decodeDate(coder, "startDate"),
            let end = SecureCoding.decodeDate(coder, "endDate"),
            start <= end
        else {
            SecureCoding.fail(coder, "an HKSample")
            return nil
        }
        return ArchivedSample(object: object, type: type, start: start, end: end)
    }
}

extension HKDiscreteQuantitySample {
    package func encodeSummary(_ coder: NSCoder) {
        coder.encode(summary.minimum, forKey: "minimum")
        coder.encode(summary.maximum, forKey: "maximum")
        coder.encode(summary.mostRecent, forKey: "mostRecent")
        SecureCoding.encode(summary.mostRecentStart, coder, "mostRecentStart")
        SecureCoding.encode(summary.mostRecentEnd, coder, "mostRecentEnd")
    }

    package static func decodeSummary(_ coder: NSCoder) -> DiscreteSummary? {
        guard coder.containsValue(forKey: "minimum"), let start = SecureCoding.decodeDate(coder, "mostRecentStart"),
            let end = SecureCoding.decodeDate(coder, "mostRecentEnd")
        else { return nil }
        return DiscreteSummary(
            minimum: coder.decodeDouble(forKey: "minimum"), maximum: coder.decodeDouble(forKey: "maximum"),
            mostRecent: coder.decodeDouble(forKey: "mostRecent"), mostRecentStart: start, mostRecentEnd: end)
    }
}

extension HKDevice: NSSecureCoding {
    public static var supportsSecureCoding: Bool { true }
    private static let keys = [
        "name", "manufacturer", "model", "hardwareVersion", "firmwareVersion", "softwareVersion",
        "localIdentifier", "udiDeviceIdentifier",
    ]

    public func encode(with coder: NSCoder) {
        for (key, value) in zip(Self.keys, fields) {
            if let value { coder.encode(value as NSString, forKey: key) }
        }
    }

    public convenience init?(coder: NSCoder) {
        let values = Self.keys.map { SecureCoding.decodeString(coder, $0) }
        self.init(
            name: values[0], manufacturer: values[1], model: values[2], hardwareVersion: values[3],
            firmwareVersion: values[4], softwareVersion: values[5], localIdentifier: values[6],
            udiDeviceIdentifier: values[7])
    }
}

extension HKSource: NSSecureCoding {
    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(name as NSString, forKey: "name")
        coder.encode(bundleIdentifier as NSString, forKey: "bundleIdentifier")
    }

    public convenience init?(coder: NSCoder) {
        guard let name = SecureCoding.decodeString(coder, "name"),
            let bundleIdentifier = SecureCoding.decodeString(coder, "bundleIdentifier")
        else {
            SecureCoding.fail(coder, "an HKSource")
            return nil
        }
        self.init(name: name, bundleIdentifier: bundleIdentifier)
    }
}

extension HKSourceRevision: NSSecureCoding {
    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(source, forKey: "source")
        if let version { coder.encode(version as NSString, forKey: "version") }
        if let productType { coder.encode(productType as NSString, forKey: "productType") }
        coder.encode(operatingSystemVersion.majorVersion, forKey: "osMajor")
        coder.encode(operatingSystemVersion.minorVersion, forKey: "osMinor")
        coder.encode(operatingSystemVersion.patchVersion, forKey: "osPatch")
    }

    public convenience init?(coder: NSCoder) {
        guard let source = coder.decodeObject(of: HKSource.self, forKey: "source") else {
            SecureCoding.fail(coder, "an HKSourceRevision")
            return nil
        }
        self.init(
            source: source, version: SecureCoding.decodeString(coder, "version"),
            productType: SecureCoding.decodeString(coder, "productType"),
            operatingSystemVersion: OperatingSystemVersion(
                majorVersion: coder.decodeInteger(forKey: "osMajor"),
                minorVersion: coder.decodeInteger(forKey: "osMinor"),
                patchVersion: coder.decodeInteger(forKey: "osPatch")))
    }
}

extension HKDeletedObject: NSSecureCoding {
    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(uuid.uuidString as NSString, forKey: "uuid")
        SecureCoding.encodeMetadata(metadata, coder)
    }

    public convenience init?(coder: NSCoder) {
        guard let uuid = SecureCoding.decodeUUID(coder, "uuid"),
            case .some(let metadata) = SecureCoding.decodeMetadata(coder)
        else {
            SecureCoding.fail(coder, "an HKDeletedObject")
            return nil
        }
        self.init(uuid: uuid, metadata: metadata)
    }
}
