import Foundation

/// An error from OpenHealthKit, with HealthKit's domain and codes.
///
/// Code written against HealthKit catches it the same ways:
///
/// ```swift
/// do { try await store.save(sample) }
/// catch let error as HKError where error.code == .errorAuthorizationDenied { … }
/// catch HKError.errorInvalidArgument { … }
/// ```
///
/// HealthKit: HKError, HKError.Code (domain `com.apple.healthkit`).
public struct HKError: CustomNSError, Hashable, LocalizedError, Sendable {
    /// HealthKit's error codes, with Apple's raw values.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        /// An error of no other kind (HealthKit's `HKUnknownError`, iOS 18; formerly `noError`).
        case unknownError = 0
        case errorHealthDataUnavailable = 1
        case errorHealthDataRestricted = 2
        case errorInvalidArgument = 3
        case errorAuthorizationDenied = 4
        case errorAuthorizationNotDetermined = 5
        case errorDatabaseInaccessible = 6
        case errorUserCanceled = 7
        case errorAnotherWorkoutSessionStarted = 8
        case errorUserExitedWorkoutSession = 9
        case errorRequiredAuthorizationDenied = 10
        case errorNoData = 11
        case errorWorkoutActivityNotAllowed = 12
        case errorDataSizeExceeded = 13
        case errorBackgroundWorkoutSessionNotAllowed = 14
        case errorNotPermissibleForGuestUserMode = 15

        /// HealthKit's older name of code 0, deprecated in its 18 SDKs for `unknownError`.
        @available(*, deprecated, renamed: "unknownError")
        public static var noError: Code { .unknownError }
        /// OpenHealthKit's former spelling of `unknownError` (HealthKit never had it); kept one release.
        @available(*, deprecated, renamed: "unknownError")
        public static var errorUnknown: Code { .unknownError }
    }

    /// HealthKit's error domain.
    public static let errorDomain = "com.apple.healthkit"

    public let code: Code
    /// A sentence saying what went wrong (NSLocalizedDescriptionKey).
    public let message: String

    /// Creates an error with a code and a user-info dictionary, as `HKError(_:userInfo:)` does.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.message = (userInfo[NSLocalizedDescriptionKey] as? String) ?? HKError.defaultMessage(for: code)
    }

    /// Creates an error with a code and a message (OpenHealthKit).
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    public var userInfo: [String: Any] { errorUserInfo }
    public var localizedDescription: String { message }
    public var errorDescription: String? { message }

    public static func == (lhs: HKError, rhs: HKError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public static var unknownError: Code { .unknownError }
    @available(*, deprecated, renamed: "unknownError")
    public static var noError: Code { .unknownError }
    /// OpenHealthKit's former spelling of `unknownError`; kept one release.
    @available(*, deprecated, renamed: "unknownError")
    public static var errorUnknown: Code { .unknownError }
    public static var errorHealthDataUnavailable: Code { .errorHealthDataUnavailable }
    public static var errorHealthDataRestricted: Code { .errorHealthDataRestricted }
    public static var errorInvalidArgument: Code { .errorInvalidArgument }
    public static var errorAuthorizationDenied: Code { .errorAuthorizationDenied }
    public static var errorAuthorizationNotDetermined: Code { .errorAuthorizationNotDetermined }
    public static var errorDatabaseInaccessible: Code { .errorDatabaseInaccessible }
    public static var errorUserCanceled: Code { .errorUserCanceled }
    public static var errorAnotherWorkoutSessionStarted: Code { .errorAnotherWorkoutSessionStarted }
    public static var errorUserExitedWorkoutSession: Code { .errorUserExitedWorkoutSession }
    public static var errorRequiredAuthorizationDenied: Code { .errorRequiredAuthorizationDenied }
    public static var errorNoData: Code { .errorNoData }
    public static var errorWorkoutActivityNotAllowed: Code { .errorWorkoutActivityNotAllowed }
    public static var errorDataSizeExceeded: Code { .errorDataSizeExceeded }
    public static var errorBackgroundWorkoutSessionNotAllowed: Code { .errorBackgroundWorkoutSessionNotAllowed }
    public static var errorNotPermissibleForGuestUserMode: Code { .errorNotPermissibleForGuestUserMode }

    package static func defaultMessage(for code: Code) -> String {
        switch code {
        case .unknownError: "An unknown error occurred."
        case .errorHealthDataUnavailable: "Health data is not available."
        case .errorHealthDataRestricted: "Health data is restricted."
        case .errorInvalidArgument: "An invalid argument was passed."
        case .errorAuthorizationDenied: "Authorization to share this data was denied."
        case .errorAuthorizationNotDetermined: "Authorization has not been requested."
        case .errorDatabaseInaccessible: "The health store cannot be opened."
        case .errorUserCanceled: "The user canceled the request."
        case .errorAnotherWorkoutSessionStarted: "Another workout session started."
        case .errorUserExitedWorkoutSession: "The user exited the workout session."
        case .errorRequiredAuthorizationDenied: "Required authorization was denied."
        case .errorNoData: "No data is available."
        case .errorWorkoutActivityNotAllowed: "This workout activity is not allowed."
        case .errorDataSizeExceeded: "The data is too large."
        case .errorBackgroundWorkoutSessionNotAllowed: "A background workout session is not allowed."
        case .errorNotPermissibleForGuestUserMode: "Not permitted in guest user mode."
        }
    }
}

/// Lets `catch HKError.errorInvalidArgument` match, as with Apple's bridged error codes.
public func ~= (code: HKError.Code, error: any Error) -> Bool {
    (error as? HKError)?.code == code
}

/// The HealthKit error domain constant (`HKErrorDomain`).
public let HKErrorDomain = HKError.errorDomain

extension HKError: CustomStringConvertible {
    public var description: String { "HKError(\(code)): \(message)" }
}

/// Raises a programmer error with a clear message, as HealthKit raises an Objective-C exception.
package func hkPrecondition(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { fatalError("OpenHealthKit: \(message())", file: file, line: line) }
}
