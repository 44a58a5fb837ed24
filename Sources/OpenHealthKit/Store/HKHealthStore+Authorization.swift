import Foundation
import GRDB
import HealthKitModel
import WorkoutEngine

/// Whether a client may save a type. Raw values as HealthKit's. HealthKit: HKAuthorizationStatus.
public enum HKAuthorizationStatus: Int, Sendable, Hashable {
    case notDetermined = 0
    case sharingDenied = 1
    case sharingAuthorized = 2
}

/// Whether asking for authorization would ask the person anything. HealthKit: HKAuthorizationRequestStatus.
public enum HKAuthorizationRequestStatus: Int, Sendable, Hashable {
    case unknown = 0
    case shouldRequest = 1
    case unnecessary = 2
}

/// How OpenHealthKit answers an authorization request, standing in for the sheet HealthKit shows. OpenHealthKit.
///
/// On Linux there is no system prompt: the person running the program owns the store file. The default policy,
/// ``grantAll``, grants what a program asks for the first time it asks, and the decision is kept in the store per
/// client. A decision once made is not asked again (as in HealthKit); change it with
/// ``HKHealthStore/setAuthorizationStatus(_:forSharing:)`` or ``HKHealthStore/setReadAuthorization(_:for:)``.
public struct HKAuthorizationPolicy: Sendable {
    /// Answers one request: given the types asked for sharing and reading, the subsets granted.
    public var decide: @Sendable (_ share: Set<String>, _ read: Set<String>) -> (share: Set<String>, read: Set<String>)

    public init(
        decide:
            @escaping @Sendable (_ share: Set<String>, _ read: Set<String>) -> (share: Set<String>, read: Set<String>)
    ) {
        self.decide = decide
    }

    /// Grant everything asked.
    public static let grantAll = HKAuthorizationPolicy { share, read in (share, read) }
    /// Deny everything asked.
    public static let denyAll = HKAuthorizationPolicy { _, _ in ([], []) }
}

extension HKHealthStore {
    private typealias ReadDecision = StoreDatabase.ReadDecision

    /// Asks for permission to save (share) and read types. Succeeds once the request has been answered, whatever
    /// the answer: as in HealthKit, success does not mean access was granted.
    ///
    /// Asking to share a type only the system writes (heart-rate notifications, stand hours, exercise time: see
    /// `SystemOnlyTypes`) fails with `errorInvalidArgument` and decides nothing, where HealthKit raises
    /// "Authorization to share the following types is disallowed".
    public func requestAuthorization(
        toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>
    ) async throws {
        let client = clientIdentifier
        let share = Set(typesToShare.map(\.identifier))
        try SystemOnlyTypes.checkRequest(share: share, client: client)
        let database = try database()
        let policy = authorizationPolicy
        let read = Set(typesToRead.map(\.identifier))
        try await database.write { db in
            var undecidedShare = Set<String>()
            var undecidedRead = Set<String>()
            for identifier in share.union(read) {
                let row = try database.authorization(client: client, type: identifier, db)
                let shareStatus = row?.share ?? HKAuthorizationStatus.notDetermined.rawValue
                let readStatus = row?.read ?? ReadDecision.notAsked.rawValue
                if share.contains(identifier) && shareStatus == HKAuthorizationStatus.notDetermined.rawValue {
                    undecidedShare.insert(identifier)
                }
                if read.contains(identifier) && readStatus == ReadDecision.notAsked.rawValue {
                    undecidedRead.insert(identifier)
                }
            }
            guard !undecidedShare.isEmpty || !undecidedRead.isEmpty else { return }
            let granted = policy.decide(undecidedShare, undecidedRead)
            for identifier in undecidedShare {
                try database.setShare(
                    granted.share.contains(identifier) ? .sharingAuthorized : .sharingDenied, client: client,
                    type: identifier, db)
            }
            for identifier in undecidedRead {
                try database.setRead(
                    granted.read.contains(identifier) ? .granted : .denied, client: client, type: identifier, db)
            }
        }
    }

    public func requestAuthorization(
        toShare typesToShare: Set<HKSampleType>?, read typesToRead: Set<HKObjectType>?,
        completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        let box = UncheckedBox((typesToShare ?? [], typesToRead ?? []))
        report({ try await self.requestAuthorization(toShare: box.value.0, read: box.value.1) }) { result in
            let (success, error) = result.healthKitPair
            completion(success, error)
        }
    }

    /// Whether this client may save a type. As in HealthKit it says nothing about reading; a type only the system
    /// writes is `sharingDenied` to every app.
    public func authorizationStatus(for type: HKObjectType) -> HKAuthorizationStatus {
        let client = clientIdentifier
        if SystemOnlyTypes.isReadOnly(type.identifier, for: client) { return .sharingDenied }
        guard let database = try? database() else { return .notDetermined }
        let raw = try? database.read { db in
            try database.authorization(client: client, type: type.identifier, db)?.share
        }
        return raw.flatMap { $0 }.flatMap(HKAuthorizationStatus.init(rawValue:)) ?? .notDetermined
    }

    /// Whether requesting these types would ask anything: `.unnecessary` once every type has been decided.
    public func statusForAuthorizationRequest(
        toShare typesToShare: Set<HKSampleType>,
        read typesToRead: Set<HKObjectType>
    ) async throws -> HKAuthorizationRequestStatus {
        let client = clientIdentifier
        try SystemOnlyTypes.checkRequest(share: Set(typesToShare.map(\.identifier)), client: client)
        let database = try database()
        return try await database.read { db in
            for type in typesToShare {
                let share = try database.authorization(client: client, type: type.identifier, db)?.share ?? 0
                if share == HKAuthorizationStatus.notDetermined.rawValue { return .shouldRequest }
            }
            for type in typesToRead {
                let read = try database.authorization(client: client, type: type.identifier, db)?.read ?? 0
                if read == ReadDecision.notAsked.rawValue { return .shouldRequest }
            }
            return .unnecessary
        }
    }

    public func getRequestStatusForAuthorization(
        toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>,
        completion: @escaping @Sendable (HKAuthorizationRequestStatus, (any Error)?) -> Void
    ) {
        let box = UncheckedBox((typesToShare, typesToRead))
        report({ try await self.statusForAuthorizationRequest(toShare: box.value.0, read: box.value.1) }) { result in
            switch result {
            case .success(let status): completion(status, nil)
            case .failure(let error): completion(.unknown, error)
            }
        }
    }

    /// Changes this client's sharing decision for a type, as the person would in Settings. OpenHealthKit.
    /// Throws `errorInvalidArgument` for granting a type only the system writes.
    public func setAuthorizationStatus(_ status: HKAuthorizationStatus, forSharing type: HKSampleType) throws {
        let client = clientIdentifier
        if status == .sharingAuthorized && SystemOnlyTypes.isReadOnly(type.identifier, for: client) {
            throw SystemOnlyTypes.disallowed([type.identifier])
        }
        let database = try database()
        try database.write { db in try database.setShare(status, client: client, type: type.identifier, db) }
    }

    /// Grants or denies this client reading a type, as the person would in Settings. OpenHealthKit.
    public func setReadAuthorization(_ granted: Bool, for type: HKObjectType) throws {
        let database = try database()
        let client = clientIdentifier
        try database.write { db in
            try database.setRead(granted ? .granted : .denied, client: client, type: type.identifier, db)
        }
    }

    /// Throws unless this client may save every one of these types. Runs inside the write transaction.
    func checkShareAuthorization(for types: [HKObjectType], _ db: Database) throws {
        let database = try database()
        var checked = Set<String>()
        for type in types where checked.insert(type.identifier).inserted {
            let identifier = type.identifier
            if SystemOnlyTypes.isReadOnly(identifier, for: clientIdentifier) {
                throw HKError(
                    .errorAuthorizationDenied,
                    "Only the system saves \(identifier); \(clientIdentifier) may read it but not share it.")
            }
            let raw = try database.authorization(client: clientIdentifier, type: identifier, db)?.share
            switch raw.flatMap(HKAuthorizationStatus.init(rawValue:)) ?? .notDetermined {
            case .sharingAuthorized:
                continue
            case .sharingDenied:
                throw HKError(
                    .errorAuthorizationDenied,
                    "Authorization to share \(identifier) was denied for \(clientIdentifier).")
            case .notDetermined:
                throw HKError(
                    .errorAuthorizationNotDetermined,
                    "\(clientIdentifier) has not requested authorization to share \(identifier); call requestAuthorization(toShare:read:) first."
                )
            }
        }
    }

    /// What this client may read.
    func readAccess(_ database: StoreDatabase) throws -> ReadAccess {
        let client = clientIdentifier
        let readable = try database.read { db in try database.readableTypes(client: client, db) }
        return ReadAccess(readableTypes: Set(readable), clientIdentifier: client)
    }
}
