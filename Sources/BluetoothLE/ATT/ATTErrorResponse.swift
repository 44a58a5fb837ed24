import ByteCoding

/// Error Response: the server could not perform a request.
///
/// `01 · request opcode · handle in error (u16) · error code`. Also thrown by ``GATTClient``
/// when a request it made is answered with an error.
///
/// Core 5.3 Vol 3 Part F §3.4.1.1.
public struct ATTErrorResponse: ATTProtocolDataUnit, Error, CustomStringConvertible {
    public static let opcode = ATTOpcode.errorResponse

    /// The opcode of the request that failed.
    public var requestOpcode: ATTOpcode
    /// The attribute handle that caused the error, or 0x0000 if none applies.
    public var handle: UInt16
    public var errorCode: ATTErrorCode

    public init(requestOpcode: ATTOpcode, handle: UInt16, errorCode: ATTErrorCode) {
        self.requestOpcode = requestOpcode
        self.handle = handle
        self.errorCode = errorCode
    }

    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = try Self.reader(for: bytes)
        requestOpcode = ATTOpcode(try reader.readUInt8("request opcode in error"))
        handle = try reader.readUInt16("attribute handle in error")
        errorCode = ATTErrorCode(try reader.readUInt8("error code"))
        try reader.expectEnd("Error Response")
    }

    public func encode() -> [UInt8] {
        var writer = Self.writer(capacity: 5)
        writer.write(requestOpcode.rawValue)
        writer.write(handle)
        writer.write(errorCode.rawValue)
        return writer.bytes
    }

    public var description: String {
        "ATT Error Response to \(requestOpcode), handle 0x\(hex(handle)): \(errorCode)"
    }
}
