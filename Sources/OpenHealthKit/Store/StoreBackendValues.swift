import Foundation
import HealthKitModel

/// A client's recorded decisions for one type: the sharing status (an `HKAuthorizationStatus` raw value) and the
/// read decision (a ``ReadDecision`` raw value).
struct AuthorizationDecision: Sendable, Equatable {
    var share: Int
    var read: Int
}

/// A client's read decision for a type, as stored.
enum ReadDecision: Int, Sendable { case notAsked = 0, granted = 1, denied = 2 }

/// HealthKit's rule for writing objects of some types: each must be authorized for sharing by the client
/// (`errorAuthorizationNotDetermined` if never asked, `errorAuthorizationDenied` if denied), and types only the
/// system saves are never shared by another client. A backend verifies it inside the transaction that writes.
struct ShareCheck: Sendable {
    var client: String
    var types: [String]

    init(client: String, types: [HKObjectType]) {
        self.client = client
        var seen = Set<String>()
        self.types = types.map(\.identifier).filter { seen.insert($0).inserted }
    }

    /// Throws unless every type is authorized; `decision` reads a type's recorded decision.
    func verify(_ decision: (String) throws -> AuthorizationDecision?) throws {
        for identifier in types {
            if SystemOnlyTypes.isReadOnly(identifier, for: client) {
                throw HKError(
                    .errorAuthorizationDenied,
                    "Only the system saves \(identifier); \(client) may read it but not share it.")
            }
            let raw = try decision(identifier)?.share
            switch raw.flatMap(HKAuthorizationStatus.init(rawValue:)) ?? .notDetermined {
            case .sharingAuthorized:
                continue
            case .sharingDenied:
                throw HKError(
                    .errorAuthorizationDenied, "Authorization to share \(identifier) was denied for \(client).")
            case .notDetermined:
                throw HKError(
                    .errorAuthorizationNotDetermined,
                    "\(client) has not requested authorization to share \(identifier); call requestAuthorization(toShare:read:) first."
                )
            }
        }
    }
}

/// What an anchored read found: added samples and deleted objects with their anchors, and the store's anchor.
struct StoreChanges: Sendable {
    var added: [(anchor: Int64, sample: HKSample)]
    var deleted: [(anchor: Int64, object: HKDeletedObject)]
    var currentAnchor: Int64
}

/// Statistics values of one range or interval: merged, per HealthKit source, and the span of the data.
struct StatisticsValues: Sendable {
    var merged: HKStatistics.Values?
    var bySource: [HKSource: HKStatistics.Values]
    var span: (start: Double, end: Double)
}

/// A quantity series sample to save (``HKQuantitySeriesSampleBuilder``).
struct QuantitySeriesToSave: Sendable {
    var type: HKQuantityType
    var quantities: [SeriesQuantity]
    var start: Double
    var end: Double
    var uuid: UUID
    /// The metadata encoded as the store keeps it (``MetadataCoding``).
    var metadata: String?
    var device: HKDevice?
    var source: HKSourceRevision
}

/// An effort sample and the workout (or one of its activities) it relates to.
struct EffortRelation: Sendable {
    var sample: UUID
    var sampleType: HKSampleType
    var workout: UUID
    var activity: UUID?
}

/// The raw material of an effort relationship query.
struct EffortRelationshipRows: Sendable {
    var rows: [(workout: UUID, activity: UUID?, sample: UUID, type: String)]
    var workouts: [HKWorkout]
    var samples: [HKSample]
    var newest: Int64
}

/// What zone preferences are computed from (``SystemZones``).
struct ZonePreferenceInputs: Sendable {
    var profile: WorkoutProfile
    var restingHeartRate: Double?
    var functionalThresholdPower: Double?
}

/// What condensing one workout did.
struct CondenseCounts: Sendable {
    var samplesRemoved = 0
    var seriesCreated = 0
    var quantitiesStored = 0
}

/// A new recording's journal: the builder, its client, whether a session drives it, and its configuration and
/// device as JSON.
struct JournalHeader: Sendable {
    var builderUUID: UUID
    var client: String
    var hasSession: Bool
    var configuration: String
    var device: String?
    var created: Date
}

/// A finished workout and everything saved with it in one transaction.
struct WorkoutToFinish: Sendable {
    var workout: HKWorkout
    /// Samples still buffered when the workout finished (the journal's are moved too).
    var samples: [CollectedSample]
    /// Heartbeats still buffered (the journal's come first).
    var beats: [HeartbeatCollector.Beat]
    /// The recording's journal, nil when it had none.
    var builderID: Int64?
    /// Samples the app added, associated with the workout.
    var associated: [UUID]
    var sensors: [HKWorkoutSensor]
    /// The device heartbeat series are saved with.
    var device: HKDevice?
    var source: HKSourceRevision
    /// The workout plan the workout was recorded with (a `.workout` file's bytes), nil for none.
    var workoutPlan: Data? = nil
}

/// An interrupted recording's journal, as recovery reads it.
struct InterruptedRecording: Sendable {
    struct Row: Sendable {
        var sequence: Int64
        var kind: Int
        var payload: [UInt8]
    }
    var builderID: Int64
    /// The configuration and device, as JSON.
    var configuration: String
    var device: String?
    var rows: [Row]
    /// The identifiers of the types the rows' sample batches name, by the backend's id (every stored type).
    var typeIdentifiers: [Int64: String]
}

/// A plan scheduled with WorkoutKit's `WorkoutScheduler`, as the store keeps it.
package struct ScheduledPlanRecord: Sendable, Equatable {
    /// The plan as a `.workout` file.
    package var plan: Data
    package var planID: UUID
    /// The date components, as `ScheduledPlanDate` writes them.
    package var date: String
    package var complete: Bool

    package init(plan: Data, planID: UUID, date: String, complete: Bool) {
        self.plan = plan
        self.planID = planID
        self.date = date
        self.complete = complete
    }
}

/// A plan kept in the store's plan library (`workout plan import`).
package struct LibraryPlanRecord: Sendable, Equatable {
    /// The store's id (0 before it is added).
    package var id: Int64
    /// The plan's name, if it has one.
    package var name: String?
    /// Where it came from: the file it was imported from.
    package var source: String
    package var imported: Date
    /// The plan as a `.workout` file.
    package var plan: Data

    package init(id: Int64 = 0, name: String?, source: String, imported: Date, plan: Data) {
        self.id = id
        self.name = name
        self.source = source
        self.imported = imported
        self.plan = plan
    }
}

extension HKError {
    /// What every backend's ``StoreBackend/associate(_:withWorkout:source:check:)`` throws when the workout is not
    /// stored: one sentence, the same whatever the backend.
    static func workoutNotSaved(_ workout: UUID) -> HKError {
        HKError(.errorInvalidArgument, "The workout \(workout) must be saved before samples can be added to it.")
    }
}

extension HKWorkoutZoneGroup {
    /// A zone group as both backends keep it: its type, its configuration's source (`storeCode`), boundaries in the
    /// type's storage unit and durations in seconds, one more duration than boundaries. Nil when they cannot be one
    /// (a damaged row).
    static func stored(
        type: HKQuantityType, sourceCode: Int, boundaries: [Double], durations: [Double]
    ) -> HKWorkoutZoneGroup? {
        guard let source = HKWorkoutZoneConfiguration.Source(storeCode: sourceCode),
            durations.count == boundaries.count + 1,
            let configuration = try? HKWorkoutZoneConfiguration(
                quantityType: type, boundaryValues: boundaries, source: source)
        else { return nil }
        return HKWorkoutZoneGroup(configuration: configuration, durations: durations)
    }
}
