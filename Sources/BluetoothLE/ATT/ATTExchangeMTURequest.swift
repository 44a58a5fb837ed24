import ByteCoding

/// Exchange MTU Request: the client states the largest ATT PDU it can receive.
///
/// `02 · client Rx MTU (u16)`. The ATT_MTU of the bearer becomes the smaller of the two Rx MTUs
/// and never less than the default 23.
///
/// Core 5.3 Vol 3 Part F §3.4.2.1.
public struct ATTExchangeMTURequest: ATTProtocolDataUnit {
    public static let opcode = ATTOpcode.exchangeMTURequest

    public var clientRxMTU: UInt16

    public init(clientRxMTU: UInt16) { self.clientRxMTU = clientRxMTU }

    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = try Self.reader(for: bytes)
        clientRxMTU = try reader.readUInt16("client Rx MTU")
        try reader.expectEnd("Exchange MTU Request")
    }

    public func encode() -> [UInt8] {
        var writer = Self.writer(capacity: 3)
        writer.write(clientRxMTU)
        return writer.bytes
    }
}

/// ATT_MTU constants (Core 5.3 Vol 3 Part F §3.2.8 and Part G §5.2.1).
public enum ATTMTU {
    /// The default and minimum ATT_MTU on an LE bearer.
    public static let `default`: UInt16 = 23
    /// The largest ATT_MTU worth asking for: an attribute value is at most 512 bytes.
    public static let maximum: UInt16 = 517

    /// The ATT_MTU both sides agree on after an exchange: the smaller Rx MTU, at least 23.
    public static func negotiated(client: UInt16, server: UInt16) -> UInt16 {
        max(Self.default, min(client, server))
    }
}
