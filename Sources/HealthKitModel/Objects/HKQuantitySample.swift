import Foundation

/// A sample holding one quantity of a quantity type: a heart rate, an amount of energy, a distance.
///
/// HealthKit creates ``HKCumulativeQuantitySample`` or ``HKDiscreteQuantitySample`` instances behind this
/// initializer (an Objective-C class cluster). Swift initializers cannot return a subclass, so an
/// `HKQuantitySample(...)` you create is of this class; every sample read back from the store is of the
/// subclass that matches its type's aggregation style.
///
/// A quantity whose unit is not compatible with the type (say, metres for heart rate) does not trap here:
/// saving it fails with `errorInvalidArgument`. Use ``validated(type:quantity:start:end:device:metadata:)``
/// to check user input up front.
///
/// HealthKit: HKQuantitySample.
open class HKQuantitySample: HKSample, @unchecked Sendable {
    public let quantityType: HKQuantityType
    /// The quantity: for a series (`count > 1`) the sum (cumulative types) or the average (discrete types).
    public let quantity: HKQuantity
    /// How many quantities the sample holds: 1, or more for a series.
    public let count: Int

    public convenience init(
        type quantityType: HKQuantityType, quantity: HKQuantity, start startDate: Date, end endDate: Date
    ) {
        self.init(type: quantityType, quantity: quantity, start: startDate, end: endDate, device: nil, metadata: nil)
    }

    public convenience init(
        type quantityType: HKQuantityType, quantity: HKQuantity, start startDate: Date, end endDate: Date,
        metadata: [String: Any]?
    ) {
        self.init(
            type: quantityType, quantity: quantity, start: startDate, end: endDate, device: nil, metadata: metadata)
    }

    public convenience init(
        type quantityType: HKQuantityType, quantity: HKQuantity, start startDate: Date, end endDate: Date,
        device: HKDevice?, metadata: [String: Any]?
    ) {
        self.init(
            quantityType: quantityType, quantity: quantity, startDate: startDate, endDate: endDate, count: 1,
            uuid: UUID(), metadata: metadata, device: device, sourceRevision: nil)
    }

    package init(
        quantityType: HKQuantityType, quantity: HKQuantity, startDate: Date, endDate: Date, count: Int, uuid: UUID,
        metadata: [String: Any]?, device: HKDevice?, sourceRevision: HKSourceRevision?
    ) {
        self.quantityType = quantityType
        self.quantity = quantity
        self.count = count
        super.init(
            sampleType: quantityType, startDate: startDate, endDate: endDate, uuid: uuid, metadata: metadata,
            device: device, sourceRevision: sourceRevision)
    }

    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(quantity, forKey: "quantity")
        coder.encode(count, forKey: "count")
    }

    public required convenience init?(coder: NSCoder) {
        guard let fields = HKSample.decodeSampleFields(coder), let type = fields.type as? HKQuantityType,
            let quantity = coder.decodeObject(of: HKQuantity.self, forKey: "quantity"),
            quantity.is(compatibleWith: type.storageUnit)
        else {
            SecureCoding.fail(coder, "an HKQuantitySample")
            return nil
        }
        self.init(
            quantityType: type, quantity: quantity, startDate: fields.start, endDate: fields.end,
            count: max(1, coder.decodeInteger(forKey: "count")), uuid: fields.object.uuid,
            metadata: fields.object.metadata,
            device: fields.object.device, sourceRevision: fields.object.sourceRevision)
    }

    /// Creates a sample from user input, throwing `errorInvalidArgument` where HealthKit would raise
    /// (incompatible unit, start after end, invalid metadata). OpenHealthKit.
    public static func validated(
        type quantityType: HKQuantityType, quantity: HKQuantity, start: Date, end: Date,
        device: HKDevice? = nil, metadata: [String: Any]? = nil
    ) throws -> HKQuantitySample {
        let sample = HKQuantitySample(
            type: quantityType, quantity: quantity, start: start, end: end, device: device,
            metadata: metadata)
        try sample.validate()
        return sample
    }

    package override func validate() throws {
        guard quantityType.is(compatibleWith: quantity.unit) else {
            throw HKError(
                .errorInvalidArgument,
                "A quantity in \(quantity.unit.unitString) is not compatible with \(quantityType.identifier), which is measured in units like \(quantityType.storageUnit.unitString)."
            )
        }
        try RequiredMetadata.check(quantityType.identifier, metadata)
        guard quantity.doubleValue(for: quantity.unit).isFinite else {
            throw HKError(
                .errorInvalidArgument,
                "A \(quantityType.identifier) sample's value must be a finite number, not \(quantity.doubleValue(for: quantity.unit))."
            )
        }
        try super.validate()
    }

    open override var description: String {
        "\(quantity) \(quantityType.identifier.replacingOccurrences(of: "HKQuantityTypeIdentifier", with: "")) \(uuid) \(startDate) – \(endDate)"
    }
}

/// A quantity sample of a cumulative type (energy, distance, counts). HealthKit: HKCumulativeQuantitySample.
public final class HKCumulativeQuantitySample: HKQuantitySample, @unchecked Sendable {
    /// The sum of the sample's quantities.
    public var sumQuantity: HKQuantity { quantity }
}

/// A quantity sample of a discrete type (heart rate, power, speed). HealthKit: HKDiscreteQuantitySample.
public final class HKDiscreteQuantitySample: HKQuantitySample, @unchecked Sendable {
    package let summary: DiscreteSummary

    /// Minimum, maximum and most recent of a discrete series; for a single quantity all equal the quantity.
    package struct DiscreteSummary: Sendable {
        package var minimum: Double
        package var maximum: Double
        package var mostRecent: Double
        package var mostRecentStart: Date
        package var mostRecentEnd: Date

        package init(minimum: Double, maximum: Double, mostRecent: Double, mostRecentStart: Date, mostRecentEnd: Date) {
            self.minimum = minimum
            self.maximum = maximum
            self.mostRecent = mostRecent
            self.mostRecentStart = mostRecentStart
            self.mostRecentEnd = mostRecentEnd
        }
    }

    package init(
        quantityType: HKQuantityType, quantity: HKQuantity, startDate: Date, endDate: Date, count: Int, uuid: UUID,
        metadata: [String: Any]?, device: HKDevice?, sourceRevision: HKSourceRevision?, summary: DiscreteSummary?
    ) {
        let unit = quantity.unit
        let value = quantity.doubleValue(for: unit)
        self.summary =
            summary
            ?? DiscreteSummary(
                minimum: value, maximum: value, mostRecent: value,
                mostRecentStart: startDate, mostRecentEnd: endDate)
        super.init(
            quantityType: quantityType, quantity: quantity, startDate: startDate, endDate: endDate, count: count,
            uuid: uuid, metadata: metadata, device: device, sourceRevision: sourceRevision)
    }

    /// A single quantity: minimum, maximum, average and most recent are the quantity. Implementing the superclass's
    /// designated initializer lets this class inherit `init(type:quantity:start:end:device:metadata:)` and its
    /// shorter forms, as HealthKit's subclass answers them.
    package override convenience init(
        quantityType: HKQuantityType, quantity: HKQuantity, startDate: Date, endDate: Date, count: Int,
        uuid: UUID, metadata: [String: Any]?, device: HKDevice?, sourceRevision: HKSourceRevision?
    ) {
        self.init(
            quantityType: quantityType, quantity: quantity, startDate: startDate, endDate: endDate, count: count,
            uuid: uuid, metadata: metadata, device: device, sourceRevision: sourceRevision, summary: nil)
    }

    public override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        encodeSummary(coder)
    }

    public required convenience init?(coder: NSCoder) {
        guard let fields = HKSample.decodeSampleFields(coder), let type = fields.type as? HKQuantityType,
            let quantity = coder.decodeObject(of: HKQuantity.self, forKey: "quantity"),
            quantity.is(compatibleWith: type.storageUnit)
        else {
            SecureCoding.fail(coder, "an HKDiscreteQuantitySample")
            return nil
        }
        self.init(
            quantityType: type, quantity: quantity, startDate: fields.start, endDate: fields.end,
            count: max(1, coder.decodeInteger(forKey: "count")), uuid: fields.object.uuid,
            metadata: fields.object.metadata,
            device: fields.object.device, sourceRevision: fields.object.sourceRevision,
            summary: HKDiscreteQuantitySample.decodeSummary(coder))
    }

    public var minimumQuantity: HKQuantity { HKQuantity(unit: quantity.unit, doubleValue: summary.minimum) }
    public var averageQuantity: HKQuantity { quantity }
    public var maximumQuantity: HKQuantity { HKQuantity(unit: quantity.unit, doubleValue: summary.maximum) }
    public var mostRecentQuantity: HKQuantity { HKQuantity(unit: quantity.unit, doubleValue: summary.mostRecent) }
    public var mostRecentQuantityDateInterval: DateInterval {
        DateInterval(start: summary.mostRecentStart, end: summary.mostRecentEnd)
    }
}
