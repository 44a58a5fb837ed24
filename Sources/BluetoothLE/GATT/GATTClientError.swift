import ByteCoding

/// Why a GATT client procedure failed, other than an ATT Error Response from the server (which is
/// thrown as ``ATTErrorResponse`` itself).
///
/// An open set of codes, after swift-service-lifecycle's `ServiceGroupError`: new codes can be
/// added without breaking callers that switch over the known ones.
public struct GATTClientError: Error, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The bearer closed or failed, or `run()` ended; no more requests can be made.
        public static let bearerClosed = Code(rawValue: "bearerClosed")
        /// The response to a request could not be decoded or did not make sense (for example a
        /// discovery page that does not advance).
        public static let malformedResponse = Code(rawValue: "malformedResponse")
        /// The characteristic has neither the notify nor the indicate property, or no CCCD.
        public static let notSubscribable = Code(rawValue: "notSubscribable")
        /// No response came within the transaction timeout; the bearer may no longer be used
        /// (Core 5.3 Vol 3 Part F §3.3.3).
        public static let transactionTimeout = Code(rawValue: "transactionTimeout")
        /// ``GATTClient/request(_:)`` was given a PDU that is not a request.
        public static let notARequest = Code(rawValue: "notARequest")
        /// The value does not fit one PDU at the current ATT_MTU (prepared writes are not supported).
        public static let valueTooLong = Code(rawValue: "valueTooLong")

        public var description: String { rawValue }
    }

    public var code: Code
    /// What happened, in a sentence.
    public var message: String
    /// The error that caused this one, such as the bearer's `Errno` or a `DecodeError`.
    public var underlying: (any Error)?

    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        if let underlying { return "\(message) (\(underlying))" }
        return message
    }
}
