import Foundation

/// The app or program that saved an object. HealthKit: HKSource.
///
/// On Linux a source is a program: its name and its client identifier (by default the executable's name;
/// see ``HKHealthStore``).
public final class HKSource: NSObject, NSCopying, Sendable {
    public let name: String
    public let bundleIdentifier: String

    package init(name: String, bundleIdentifier: String) {
        self.name = name
        self.bundleIdentifier = bundleIdentifier
    }

    /// The source of the running program.
    public class func `default`() -> HKSource {
        HKSource(name: HKSourceRevision.processName, bundleIdentifier: HKSourceRevision.processName)
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKSource else { return false }
        return other.bundleIdentifier == bundleIdentifier && other.name == name
    }

    public override var hash: Int { bundleIdentifier.hashValue }
    public override var description: String { "\(name) (\(bundleIdentifier))" }
    public func copy(with zone: NSZone? = nil) -> Any { self }
}

/// A version of a source. HealthKit: HKSourceRevision.
public final class HKSourceRevision: NSObject, NSCopying, Sendable {
    public let source: HKSource
    public let version: String?
    public let productType: String?
    public let operatingSystemVersion: OperatingSystemVersion

    public init(
        source: HKSource, version: String?, productType: String?, operatingSystemVersion: OperatingSystemVersion
    ) {
        self.source = source
        self.version = version
        self.productType = productType
        self.operatingSystemVersion = operatingSystemVersion
    }

    public convenience init(source: HKSource, version: String?) {
        self.init(
            source: source, version: version, productType: nil,
            operatingSystemVersion: OperatingSystemVersion(majorVersion: 0, minorVersion: 0, patchVersion: 0))
    }

    /// The revision of the running program: its source, and the operating system it runs on.
    package static func current(clientIdentifier: String) -> HKSourceRevision {
        if clientIdentifier == defaultRevision.source.bundleIdentifier { return defaultRevision }
        return HKSourceRevision(
            source: HKSource(name: processName, bundleIdentifier: clientIdentifier),
            version: nil, productType: "Linux", operatingSystemVersion: operatingSystem)
    }

    /// The executable's name: the default client identifier and the name of its source. Read once, as the OS version
    /// is: ProcessInfo reads files for it, and objects are created by the million.
    package static let processName = ProcessInfo.processInfo.processName
    private static let operatingSystem = ProcessInfo.processInfo.operatingSystemVersion
    private static let defaultRevision = HKSourceRevision(
        source: HKSource(name: processName, bundleIdentifier: processName), version: nil, productType: "Linux",
        operatingSystemVersion: operatingSystem)

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKSourceRevision else { return false }
        return other.source == source && other.version == version && other.productType == productType
            && other.operatingSystemVersion.majorVersion == operatingSystemVersion.majorVersion
            && other.operatingSystemVersion.minorVersion == operatingSystemVersion.minorVersion
            && other.operatingSystemVersion.patchVersion == operatingSystemVersion.patchVersion
    }

    public override var hash: Int { source.hash }
    public func copy(with zone: NSZone? = nil) -> Any { self }
}

/// The version string of any version of a source. HealthKit: HKSourceRevisionAnyVersion.
public let HKSourceRevisionAnyVersion = "HKSourceRevisionAnyVersion"
/// Any product type. HealthKit: HKSourceRevisionAnyProductType.
public let HKSourceRevisionAnyProductType = "HKSourceRevisionAnyProductType"
/// Any operating system version (major version -1). Source-revision predicates here match by bundle identifier and
/// version only, so every operating system matches already. HealthKit: HKSourceRevisionAnyOperatingSystem.
public let HKSourceRevisionAnyOperatingSystem = OperatingSystemVersion(
    majorVersion: -1, minorVersion: 0, patchVersion: 0)
