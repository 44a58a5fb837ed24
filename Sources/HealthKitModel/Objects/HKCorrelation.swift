import Foundation

/// A sample that groups other samples: a blood-pressure reading (its systolic and diastolic quantity samples) or a
/// food (its dietary quantity samples).
///
/// ```swift
/// let reading = HKCorrelation(type: HKCorrelationType(.bloodPressure), start: date, end: date,
///                             objects: [systolic, diastolic])
/// try await store.save(reading)
/// ```
///
/// A correlation holding a sample its type does not take (a heart rate in a blood-pressure reading) fails to save
/// with `errorInvalidArgument`, as does an empty one. OpenHealthKit's store keeps the samples a correlation holds,
/// queryable and counted in statistics like any others, but not the grouping itself: `HKCorrelationQuery` is not
/// provided (see COMPATIBILITY.md).
///
/// HealthKit: HKCorrelation.
open class HKCorrelation: HKSample, @unchecked Sendable {
    /// The samples the correlation groups.
    public let objects: Set<HKSample>

    /// The correlation's type.
    public var correlationType: HKCorrelationType {
        sampleType as? HKCorrelationType ?? HKCorrelationType(identifier: sampleType.identifier)
    }

    public convenience init(
        type correlationType: HKCorrelationType, start startDate: Date, end endDate: Date, objects: Set<HKSample>
    ) {
        self.init(type: correlationType, start: startDate, end: endDate, objects: objects, device: nil, metadata: nil)
    }

    public convenience init(
        type correlationType: HKCorrelationType, start startDate: Date, end endDate: Date, objects: Set<HKSample>,
        metadata: [String: Any]?
    ) {
        self.init(
            type: correlationType, start: startDate, end: endDate, objects: objects, device: nil, metadata: metadata)
    }

    public convenience init(
        type correlationType: HKCorrelationType, start startDate: Date, end endDate: Date, objects: Set<HKSample>,
        device: HKDevice?, metadata: [String: Any]?
    ) {
        self.init(
            correlationType: correlationType, objects: objects, startDate: startDate, endDate: endDate, uuid: UUID(),
            metadata: metadata, device: device, sourceRevision: nil)
    }

    package init(
        correlationType: HKCorrelationType, objects: Set<HKSample>, startDate: Date, endDate: Date, uuid: UUID,
        metadata: [String: Any]?, device: HKDevice?, sourceRevision: HKSourceRevision?
    ) {
        self.objects = objects
        super.init(
            sampleType: correlationType, startDate: startDate, endDate: endDate, uuid: uuid, metadata: metadata,
            device: device, sourceRevision: sourceRevision)
    }

    /// The samples of one type among the correlation's objects. HealthKit: HKCorrelation.objects(for:).
    public func objects(for objectType: HKObjectType) -> Set<HKSample> {
        objects.filter { $0.sampleType == objectType }
    }

    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        SecureCoding.encodeList(objects.sorted { $0.uuid.uuidString < $1.uuid.uuidString }, coder, "objects")
    }

    public required convenience init?(coder: NSCoder) {
        guard let fields = HKSample.decodeSampleFields(coder),
            HKCorrelationType.known.contains(fields.type.identifier),
            let objects = SecureCoding.decodeList(HKSample.self, coder, "objects")
        else {
            SecureCoding.fail(coder, "an HKCorrelation")
            return nil
        }
        self.init(
            correlationType: HKCorrelationType(identifier: fields.type.identifier), objects: Set(objects),
            startDate: fields.start, endDate: fields.end, uuid: fields.object.uuid, metadata: fields.object.metadata,
            device: fields.object.device, sourceRevision: fields.object.sourceRevision)
    }

    package override func validate() throws {
        guard HKCorrelationType.known.contains(sampleType.identifier) else {
            throw HKError(
                .errorInvalidArgument, "\(sampleType.identifier) is not a correlation type HealthKit defines.")
        }
        guard !objects.isEmpty else {
            throw HKError(
                .errorInvalidArgument, "A \(sampleType.identifier) correlation must hold at least one sample.")
        }
        for object in objects {
            guard correlationType.mayHold(object.sampleType), !(object is HKCorrelation) else {
                throw HKError(
                    .errorInvalidArgument,
                    "A \(sampleType.identifier) correlation cannot hold a \(object.sampleType.identifier) sample.")
            }
            try object.validate()
        }
        try super.validate()
    }
}
