import Foundation
import HealthKitModel

/// How both backends keep correlations (blood pressure, food). OpenHealthKit.
///
/// A correlation is a sample row of its correlation type with no value; each sample it holds is a row of its own
/// type whose `correlation_id` names the correlation's row. So the samples a correlation holds are queried,
/// aggregated and deleted as any others, and a query of a correlation type reads the correlations with the samples
/// they hold. The rules here are the backends' one place for what is written and what a reader sees.
enum StoredCorrelations {
    /// The objects a save writes, in order, and which of them each correlation holds: every correlation is followed
    /// by its objects (by start date, then UUID, so a save is repeatable). `links` gives, for each correlation, its
    /// position in `rows` and its objects' positions.
    static func rows(_ objects: [HKObject]) -> (rows: [HKObject], links: [(correlation: Int, objects: [Int])]) {
        var rows: [HKObject] = []
        var links: [(correlation: Int, objects: [Int])] = []
        for object in objects {
            guard let correlation = object as? HKCorrelation else {
                rows.append(object)
                continue
            }
            let position = rows.count
            rows.append(correlation)
            let held = correlation.objects.sorted {
                ($0.startDate, $0.uuid.uuidString) < ($1.startDate, $1.uuid.uuidString)
            }
            links.append((position, Array(rows.count ..< rows.count + held.count)))
            rows.append(contentsOf: held)
        }
        return (rows, links)
    }

    /// The types a save must be allowed to share: a correlation's are the types of the samples it holds, never its
    /// own (HealthKit refuses to ask for a correlation type; it authorizes the samples inside).
    static func sharedTypes(_ objects: [HKObject]) -> [HKObjectType] {
        objects.flatMap { object -> [HKObjectType] in
            if let correlation = object as? HKCorrelation { return correlation.objects.map(\.sampleType) }
            return [(object as? HKSample)?.sampleType ?? HKObjectType(identifier: "\(type(of: object))")]
        }
    }

    /// Whether a reader sees a sample a correlation holds: one of a type it may read, or one it saved itself.
    static func isVisible(_ sample: HKSample, to access: ReadAccess) -> Bool {
        access.canRead(sample.sampleType.identifier)
            || sample.sourceRevision.source.bundleIdentifier == access.clientIdentifier
    }

    /// A stored correlation with the samples it holds that `access` may see.
    static func correlation(
        type: HKCorrelationType, objects: [HKSample], start: Date, end: Date, uuid: UUID, metadata: [String: Any]?,
        device: HKDevice?, source: HKSourceRevision, access: ReadAccess
    ) -> HKCorrelation {
        HKCorrelation(
            correlationType: type, objects: Set(objects.filter { isVisible($0, to: access) }), startDate: start,
            endDate: end, uuid: uuid, metadata: metadata, device: device, sourceRevision: source)
    }

    /// A correlation decoded without its samples (`bare`), with them.
    static func filled(
        _ bare: HKSample, type: HKCorrelationType, objects: [HKSample], access: ReadAccess
    ) -> HKCorrelation {
        correlation(
            type: type, objects: objects, start: bare.startDate, end: bare.endDate, uuid: bare.uuid,
            metadata: bare.metadata, device: bare.device, source: bare.sourceRevision, access: access)
    }

    /// The sentence for a request that names a correlation type, as HealthKit words its exception.
    static func disallowed(_ identifiers: some Sequence<String>, sharing: Bool) -> HKError {
        HKError(
            .errorInvalidArgument,
            "Authorization to \(sharing ? "share" : "read") the following types is disallowed: "
                + "\(identifiers.sorted().joined(separator: ", ")). "
                + "Ask for the types of the samples a correlation holds instead.")
    }

    /// Throws ``disallowed(_:sharing:)`` when an authorization request names a correlation type.
    static func checkRequest(share: Set<String>, read: Set<String>) throws {
        let shared = share.filter(HKCorrelationType.known.contains)
        if !shared.isEmpty { throw disallowed(shared, sharing: true) }
        let read = read.filter(HKCorrelationType.known.contains)
        if !read.isEmpty { throw disallowed(read, sharing: false) }
    }
}
