/// The error code carried by an ATT Error Response.
///
/// An open set, like GRDB's `ResultCode`: unknown and application codes (0x80–0x9F) decode as
/// values, and `~=` lets a caller match a thrown ``ATTErrorResponse`` directly:
///
/// ```swift
/// do { try await client.readValue(handle: 0x0010) }
/// catch ATTErrorCode.readNotPermitted { … }
/// ```
///
/// Core 5.3 Vol 3 Part F §3.4.1.1 (Table 3.4) and Core Specification Supplement Part B §1.2
/// (common profile and service error codes 0xE0–0xFF).
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// The attribute handle given was not valid on this server.
    public static let invalidHandle = ATTErrorCode(0x01)
    /// The attribute cannot be read.
    public static let readNotPermitted = ATTErrorCode(0x02)
    /// The attribute cannot be written.
    public static let writeNotPermitted = ATTErrorCode(0x03)
    /// The attribute PDU was invalid.
    public static let invalidPDU = ATTErrorCode(0x04)
    /// The attribute requires authentication before it can be read or written.
    public static let insufficientAuthentication = ATTErrorCode(0x05)
    /// The server does not support the request received from the client.
    public static let requestNotSupported = ATTErrorCode(0x06)
    /// The offset specified was past the end of the attribute.
    public static let invalidOffset = ATTErrorCode(0x07)
    /// The attribute requires authorization before it can be read or written.
    public static let insufficientAuthorization = ATTErrorCode(0x08)
    /// Too many prepare writes have been queued.
    public static let prepareQueueFull = ATTErrorCode(0x09)
    /// No attribute found within the given attribute handle range.
    public static let attributeNotFound = ATTErrorCode(0x0A)
    /// The attribute cannot be read using the Read Blob Request.
    public static let attributeNotLong = ATTErrorCode(0x0B)
    /// The encryption key size used for encrypting this link is too short.
    public static let encryptionKeySizeTooShort = ATTErrorCode(0x0C)
    /// The attribute value length is invalid for the operation.
    public static let invalidAttributeValueLength = ATTErrorCode(0x0D)
    /// The request has encountered an unlikely error and could not be completed.
    public static let unlikelyError = ATTErrorCode(0x0E)
    /// The attribute requires encryption before it can be read or written.
    public static let insufficientEncryption = ATTErrorCode(0x0F)
    /// The attribute type is not a supported grouping attribute.
    public static let unsupportedGroupType = ATTErrorCode(0x10)
    /// Insufficient resources to complete the request.
    public static let insufficientResources = ATTErrorCode(0x11)
    /// The server requests the client to rediscover the database.
    public static let databaseOutOfSync = ATTErrorCode(0x12)
    /// The attribute parameter value was not allowed.
    public static let valueNotAllowed = ATTErrorCode(0x13)
    /// Write Request Rejected (Supplement Part B §1.2).
    public static let writeRequestRejected = ATTErrorCode(0xFC)
    /// The CCCD is improperly configured (Supplement Part B §1.2).
    public static let cccdImproperlyConfigured = ATTErrorCode(0xFD)
    /// A procedure is already in progress (Supplement Part B §1.2).
    public static let procedureAlreadyInProgress = ATTErrorCode(0xFE)
    /// The value is out of range (Supplement Part B §1.2).
    public static let outOfRange = ATTErrorCode(0xFF)

    /// Whether this is an application error (0x80–0x9F), defined by a higher-layer specification.
    public var isApplicationError: Bool { (0x80 ... 0x9F).contains(rawValue) }

    public var description: String {
        let name: String
        switch self {
        case .invalidHandle: name = "Invalid Handle"
        case .readNotPermitted: name = "Read Not Permitted"
        case .writeNotPermitted: name = "Write Not Permitted"
        case .invalidPDU: name = "Invalid PDU"
        case .insufficientAuthentication: name = "Insufficient Authentication"
        case .requestNotSupported: name = "Request Not Supported"
        case .invalidOffset: name = "Invalid Offset"
        case .insufficientAuthorization: name = "Insufficient Authorization"
        case .prepareQueueFull: name = "Prepare Queue Full"
        case .attributeNotFound: name = "Attribute Not Found"
        case .attributeNotLong: name = "Attribute Not Long"
        case .encryptionKeySizeTooShort: name = "Encryption Key Size Too Short"
        case .invalidAttributeValueLength: name = "Invalid Attribute Value Length"
        case .unlikelyError: name = "Unlikely Error"
        case .insufficientEncryption: name = "Insufficient Encryption"
        case .unsupportedGroupType: name = "Unsupported Group Type"
        case .insufficientResources: name = "Insufficient Resources"
        case .databaseOutOfSync: name = "Database Out Of Sync"
        case .valueNotAllowed: name = "Value Not Allowed"
        case .writeRequestRejected: name = "Write Request Rejected"
        case .cccdImproperlyConfigured: name = "CCCD Improperly Configured"
        case .procedureAlreadyInProgress: name = "Procedure Already In Progress"
        case .outOfRange: name = "Out Of Range"
        default: name = isApplicationError ? "Application Error" : "Reserved"
        }
        return "\(name) (0x\(hex(rawValue)))"
    }

    /// Matches a thrown ``ATTErrorResponse`` by its code in a `catch` pattern.
    public static func ~= (code: ATTErrorCode, error: any Error) -> Bool {
        (error as? ATTErrorResponse)?.errorCode == code
    }
}
