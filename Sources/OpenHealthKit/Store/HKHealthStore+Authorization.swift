import Foundation
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
    /// Asks for permission to save (share) and read types. Succeeds once the request has been answered, whatever
    /// the answer: as in HealthKit, success does not mean access was granted.
    ///
    /// Asking to share a type only the system writes (heart-rate notifications, stand hours, exercise time: see
    /// `SystemOnlyTypes`), or to share or read a correlation type, fails with `errorInvalidArgument` and decides
    /// nothing, where HealthKit raises "Authorization to share (read) the following types is disallowed". A
    /// correlation is saved and read with the authorization of the types of the samples it holds.
    public func requestAuthorization(
        toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>
    ) async throws {
        let client = clientIdentifier
        let share = Set(typesToShare.map(\.identifier))
        let read = Set(typesToRead.map(\.identifier))
        try SystemOnlyTypes.checkRequest(share: share, client: client)
        try StoredCorrelations.checkRequest(share: share, read: read)
        let backend = try backend()
        let policy = authorizationPolicy
        // The decisions are read, asked of the policy and recorded in one transaction.
        try await backend.updateAuthorization(client: client, types: share.union(read)) { decisions in
            var undecidedShare = Set<String>()
            var undecidedRead = Set<String>()
            for identifier in share.union(read) {
                let decision = decisions[identifier]
                let shareStatus = decision?.share ?? HKAuthorizationStatus.notDetermined.rawValue
                let readStatus = decision?.read ?? ReadDecision.notAsked.rawValue
                if share.contains(identifier) && shareStatus == HKAuthorizationStatus.notDetermined.rawValue {
                    undecidedShare.insert(identifier)
                }
                if read.contains(identifier) && readStatus == ReadDecision.notAsked.rawValue {
                    undecidedRead.insert(identifier)
                }
            }
            guard !undecidedShare.isEmpty || !undecidedRead.isEmpty else { return [:] }
            let granted = policy.decide(undecidedShare, undecidedRead)
            var changed: [String: AuthorizationDecision] = [:]
            for identifier in undecidedShare.union(undecidedRead) {
                var decision = decisions[identifier] ?? AuthorizationDecision(share: 0, read: 0)
                if undecidedShare.contains(identifier) {
                    decision.share =
                        (granted.share.contains(identifier) ? HKAuthorizationStatus.sharingAuthorized : .sharingDenied)
                        .rawValue
                }
                if undecidedRead.contains(identifier) {
                    decision.read = (granted.read.contains(identifier) ? ReadDecision.granted : .denied).rawValue
                }
                changed[identifier] = decision
            }
            return changed
        }
    }

    public func requestAuthorization(
        toShare typesToShare: Set<HKSampleType>?, read typesToRead: Set<HKObjectType>?,
        completion: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        let (share, read) = (typesToShare ?? [], typesToRead ?? [])
        report({ try await self.requestAuthorization(toShare: share, read: read) }) { result in
            let (success, error) = result.healthKitPair
            completion(success, error)
        }
    }

    /// Whether this client may save a type. As in HealthKit it says nothing about reading; a type only the system
    /// writes is `sharingDenied` to every app.
    public func authorizationStatus(for type: HKObjectType) -> HKAuthorizationStatus {
        let client = clientIdentifier
        if SystemOnlyTypes.isReadOnly(type.identifier, for: client) { return .sharingDenied }
        guard let backend = try? backend() else { return .notDetermined }
        // HealthKit's call is synchronous: the one read of it blocks its caller.
        let raw = try? backend.authorizationDecisionBlocking(client: client, type: type.identifier)?.share
        return raw.flatMap(HKAuthorizationStatus.init(rawValue:)) ?? .notDetermined
    }

    /// Whether requesting these types would ask anything: `.unnecessary` once every type has been decided.
    public func statusForAuthorizationRequest(
        toShare typesToShare: Set<HKSampleType>,
        read typesToRead: Set<HKObjectType>
    ) async throws -> HKAuthorizationRequestStatus {
        let client = clientIdentifier
        try SystemOnlyTypes.checkRequest(share: Set(typesToShare.map(\.identifier)), client: client)
        try StoredCorrelations.checkRequest(
            share: Set(typesToShare.map(\.identifier)), read: Set(typesToRead.map(\.identifier)))
        let decisions = try await backend().authorizationDecisions(
            client: client, types: Set(typesToShare.map(\.identifier)).union(typesToRead.map(\.identifier)))
        for type in typesToShare {
            let share = decisions[type.identifier]?.share ?? 0
            if share == HKAuthorizationStatus.notDetermined.rawValue { return .shouldRequest }
        }
        for type in typesToRead {
            let read = decisions[type.identifier]?.read ?? 0
            if read == ReadDecision.notAsked.rawValue { return .shouldRequest }
        }
        return .unnecessary
    }

    public func getRequestStatusForAuthorization(
        toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>,
        completion: @escaping @Sendable (HKAuthorizationRequestStatus, (any Error)?) -> Void
    ) {
        report({ try await self.statusForAuthorizationRequest(toShare: typesToShare, read: typesToRead) }) { result in
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
        // OpenHealthKit's setter is synchronous: it blocks its caller for one write.
        try backend().recordAuthorizationBlocking(
            client: client, type: type.identifier, share: status.rawValue, read: nil)
    }

    /// Grants or denies this client reading a type, as the person would in Settings. OpenHealthKit.
    public func setReadAuthorization(_ granted: Bool, for type: HKObjectType) throws {
        // OpenHealthKit's setter is synchronous: it blocks its caller for one write.
        try backend().recordAuthorizationBlocking(
            client: clientIdentifier, type: type.identifier, share: nil,
            read: (granted ? ReadDecision.granted : .denied).rawValue)
    }

    /// Throws unless this client may save every one of these types. Runs inside the write transaction.
    /// Throws unless this client may share every type (see ``ShareCheck``): a read of the store, the calling task
    /// suspended.
    func checkShareAuthorization(for types: [HKObjectType]) async throws {
        try await backend().checkShareAuthorization(ShareCheck(client: clientIdentifier, types: types))
    }

    /// This client's read access.
    func readAccess() async throws -> ReadAccess {
        ReadAccess(
            readableTypes: try await backend().readableTypes(client: clientIdentifier),
            clientIdentifier: clientIdentifier)
    }
}
