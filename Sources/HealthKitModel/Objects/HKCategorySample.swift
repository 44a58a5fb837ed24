import Foundation

/// A sample holding one value of a category type over a span of time: a stand hour, a stage of sleep, a mindful
/// session, a heart-rate notification.
///
/// ```swift
/// let night = HKCategorySample(type: HKCategoryType(.sleepAnalysis), value: HKCategoryValueSleepAnalysis.asleepDeep.rawValue,
///                              start: start, end: end)
/// try await store.save(night)
/// ```
///
/// A value the type does not define (say 9 for sleep analysis) does not trap here: saving the sample fails with
/// `errorInvalidArgument`, as does a start after the end. Category samples are stored, queried (sample, anchored and
/// observer queries, `HKSamplePredicate.categorySample(type:predicate:)`), deleted and authorized per type like any
/// sample; they have no statistics and condensing leaves them alone.
///
/// HealthKit: HKCategorySample.
open class HKCategorySample: HKSample, @unchecked Sendable {
    /// The sample's value: the raw value of the type's value enum (`HKCategoryValueSleepAnalysis`, …).
    public let value: Int

    /// The sample's category type.
    public var categoryType: HKCategoryType {
        sampleType as? HKCategoryType ?? HKCategoryType(identifier: sampleType.identifier)
    }

    public convenience init(type: HKCategoryType, value: Int, start startDate: Date, end endDate: Date) {
        self.init(type: type, value: value, start: startDate, end: endDate, device: nil, metadata: nil)
    }

    public convenience init(
        type: HKCategoryType, value: Int, start startDate: Date, end endDate: Date,
        metadata: [String: Any]?
    ) {
        self.init(type: type, value: value, start: startDate, end: endDate, device: nil, metadata: metadata)
    }

    public convenience init(
        type: HKCategoryType, value: Int, start startDate: Date, end endDate: Date,
        device: HKDevice?, metadata: [String: Any]?
    ) {
        self.init(
            categoryType: type, value: value, startDate: startDate, endDate: endDate, uuid: UUID(), metadata: metadata,
            device: device, sourceRevision: nil)
    }

    package init(
        categoryType: HKCategoryType, value: Int, startDate: Date, endDate: Date, uuid: UUID, metadata: [String: Any]?,
        device: HKDevice?, sourceRevision: HKSourceRevision?
    ) {
        self.value = value
        super.init(
            sampleType: categoryType, startDate: startDate, endDate: endDate, uuid: uuid, metadata: metadata,
            device: device, sourceRevision: sourceRevision)
    }

    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(value, forKey: "value")
    }

    public required convenience init?(coder: NSCoder) {
        guard let fields = HKSample.decodeSampleFields(coder), let type = HKCategoryType.known(fields.type.identifier),
            coder.containsValue(forKey: "value")
        else {
            SecureCoding.fail(coder, "an HKCategorySample")
            return nil
        }
        self.init(
            categoryType: type, value: coder.decodeInteger(forKey: "value"), startDate: fields.start,
            endDate: fields.end,
            uuid: fields.object.uuid, metadata: fields.object.metadata, device: fields.object.device,
            sourceRevision: fields.object.sourceRevision)
    }

    package override func validate() throws {
        guard let values = categoryType.validValues else {
            throw HKError(.errorInvalidArgument, "\(sampleType.identifier) is not a category type this version stores.")
        }
        guard values.contains(value) else {
            throw HKError(
                .errorInvalidArgument,
                "\(value) is not a value of \(sampleType.identifier) (it takes \(values.sorted().map(String.init).joined(separator: ", ")))."
            )
        }
        try RequiredMetadata.check(sampleType.identifier, metadata)
        try super.validate()
    }
}
