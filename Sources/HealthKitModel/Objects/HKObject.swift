import Foundation

/// The base of everything the health store holds: a UUID, metadata, a source and an optional device.
///
/// Objects are immutable. Two objects are equal when their UUIDs are.
///
/// HealthKit: HKObject.
open class HKObject: NSObject, NSSecureCoding, @unchecked Sendable {
    /// The object's unique identifier.
    public let uuid: UUID
    /// Extra information: values are `String`, numbers, `Bool`, `Date` or `HKQuantity`.
    public let metadata: [String: Any]?
    /// The device that produced the object.
    public let device: HKDevice?
    /// The program (and version) that saved the object.
    public let sourceRevision: HKSourceRevision

    /// The program that saved the object.
    @available(*, deprecated, message: "Use sourceRevision")
    public var source: HKSource { sourceRevision.source }

    package init(uuid: UUID, metadata: [String: Any]?, device: HKDevice?, sourceRevision: HKSourceRevision?) {
        self.uuid = uuid
        self.metadata = (metadata?.isEmpty ?? true) ? nil : metadata
        self.device = device
        self.sourceRevision =
            sourceRevision ?? HKSourceRevision.current(clientIdentifier: HKSourceRevision.processName)
    }

    /// Archives the object (`NSSecureCoding`; see `Coding/ObjectCoding.swift`).
    open func encode(with coder: NSCoder) { encodeObjectFields(coder) }

    public required convenience init?(coder: NSCoder) {
        guard let fields = HKObject.decodeObjectFields(coder) else { return nil }
        self.init(
            uuid: fields.uuid, metadata: fields.metadata, device: fields.device, sourceRevision: fields.sourceRevision)
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKObject else { return false }
        return other.uuid == uuid
    }

    open override var hash: Int { uuid.hashValue }
}

/// An object with a start and an end date. HealthKit: HKSample.
open class HKSample: HKObject, @unchecked Sendable {
    public let sampleType: HKSampleType
    public let startDate: Date
    public let endDate: Date

    /// Whether the sample has no end yet (HealthKit uses it for some category samples; always false here).
    public var hasUndeterminedDuration: Bool { endDate == .distantFuture }

    package init(
        sampleType: HKSampleType, startDate: Date, endDate: Date, uuid: UUID, metadata: [String: Any]?,
        device: HKDevice?, sourceRevision: HKSourceRevision?
    ) {
        self.sampleType = sampleType
        self.startDate = startDate
        self.endDate = endDate
        super.init(uuid: uuid, metadata: metadata, device: device, sourceRevision: sourceRevision)
    }

    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        encodeSampleFields(coder)
    }

    public required convenience init?(coder: NSCoder) {
        guard let fields = HKSample.decodeSampleFields(coder) else { return nil }
        self.init(
            sampleType: fields.type, startDate: fields.start, endDate: fields.end, uuid: fields.object.uuid,
            metadata: fields.object.metadata, device: fields.object.device, sourceRevision: fields.object.sourceRevision
        )
    }

    /// Checks what HealthKit checks when a sample is created or saved. Throws `errorInvalidArgument`.
    package func validate() throws {
        guard startDate <= endDate else {
            throw HKError(
                .errorInvalidArgument,
                "The sample's start date \(startDate) is after its end date \(endDate).")
        }
        if sampleType.isMaximumDurationRestricted,
            endDate.timeIntervalSince(startDate) > sampleType.maximumAllowedDuration
        {
            throw HKError(
                .errorInvalidArgument,
                "A \(sampleType.identifier) sample may last at most \(sampleType.maximumAllowedDuration) s.")
        }
        try MetadataCoding.validate(metadata)
    }
}

/// Sort key: a sample's start date. HealthKit: HKSampleSortIdentifierStartDate.
public let HKSampleSortIdentifierStartDate = "startDate"
/// Sort key: a sample's end date. HealthKit: HKSampleSortIdentifierEndDate.
public let HKSampleSortIdentifierEndDate = "endDate"

extension NSSortDescriptor {
    /// Creates a sort descriptor for one of HealthKit's sort identifiers.
    ///
    /// swift-corelibs-foundation marks this initializer unavailable (it has no key-value coding); OpenHealthKit
    /// brings it back for HealthKit's keys, so `NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)`
    /// compiles and sorts as on Apple's platforms. The key is mapped to a Swift key path on `HKSample` or `HKWorkout`;
    /// an unknown key traps, as key-value coding raises on Apple's platforms.
    public convenience init(key: String?, ascending: Bool) {
        switch key {
        case HKSampleSortIdentifierStartDate: self.init(keyPath: \HKSample.startDate, ascending: ascending)
        case HKSampleSortIdentifierEndDate: self.init(keyPath: \HKSample.endDate, ascending: ascending)
        case HKWorkoutSortIdentifierDuration: self.init(keyPath: \HKWorkout.duration, ascending: ascending)
        case HKWorkoutSortIdentifierTotalDistance:
            self.init(keyPath: \HKWorkout.sortTotalDistance, ascending: ascending)
        case HKWorkoutSortIdentifierTotalEnergyBurned:
            self.init(keyPath: \HKWorkout.sortTotalEnergyBurned, ascending: ascending)
        case HKWorkoutSortIdentifierTotalSwimmingStrokeCount:
            self.init(keyPath: \HKWorkout.sortTotalSwimmingStrokeCount, ascending: ascending)
        case HKWorkoutSortIdentifierTotalFlightsClimbed:
            self.init(keyPath: \HKWorkout.sortTotalFlightsClimbed, ascending: ascending)
        default:
            fatalError("OpenHealthKit: NSSortDescriptor key '\(key ?? "nil")' is not a HealthKit sort identifier")
        }
    }
}
