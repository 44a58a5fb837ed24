import Foundation
import HealthKitModel

/// What a client may read: HealthKit's privacy rule is that a type not granted for reading looks exactly like a
/// type with no data, except for the client's own objects.
struct ReadAccess: Sendable {
    /// Identifiers of the types the client may read; nil means every type.
    var readableTypes: Set<String>?
    var clientIdentifier: String

    /// Whether the client may read a type. A correlation type is never granted (HealthKit refuses to ask for one):
    /// correlations of it are readable where a type they may hold is, and show only their readable objects
    /// (``StoredCorrelations``).
    func canRead(_ identifier: String) -> Bool {
        guard let readableTypes else { return true }
        if readableTypes.contains(identifier) { return true }
        guard HKCorrelationType.known.contains(identifier) else { return false }
        return readableTypes.contains { HKCorrelationType.mayHold($0, in: identifier) }
    }
}

/// One sort key of a sample query, from an `NSSortDescriptor` or a `SortDescriptor`.
///
/// `@unchecked`: forced by Apple's API, whose `HKSampleQuery` takes `NSSortDescriptor`s (and `AnyKeyPath`s) that are
/// not `Sendable`; a sort is made once and only read.
struct SampleSort: @unchecked Sendable {
    var keyPath: AnyKeyPath?
    var ascending: Bool
    var compare: (HKSample, HKSample) -> ComparisonResult

    init(_ descriptor: NSSortDescriptor) {
        keyPath = descriptor.keyPath
        ascending = descriptor.ascending
        compare = { descriptor.compare($0, to: $1) }
    }

    init<Sample: HKSample>(_ descriptor: SortDescriptor<Sample>) {
        keyPath = descriptor.keyPath
        ascending = descriptor.order == .forward
        compare = { a, b in
            guard let a = a as? Sample, let b = b as? Sample else { return .orderedSame }
            return descriptor.compare(a, b)
        }
    }
}

extension HKSampleType {
    /// The sample type a store names by its identifier; `errorDatabaseInaccessible` for one this version does not
    /// know.
    static func stored(identifier: String) throws -> HKSampleType {
        if identifier == HKWorkoutTypeIdentifier { return HKWorkoutType.shared }
        if let quantityType = HKQuantityType.known(identifier) { return quantityType }
        if let seriesType = HKObjectType.seriesType(forIdentifier: identifier) { return seriesType }
        if let categoryType = HKCategoryType.known(identifier) { return categoryType }
        if HKCorrelationType.known.contains(identifier) { return HKCorrelationType(identifier: identifier) }
        throw HKError(
            .errorDatabaseInaccessible, "The health store holds samples of type \(identifier), unknown to this version."
        )
    }
}
