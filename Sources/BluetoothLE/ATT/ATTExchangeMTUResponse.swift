import ByteCoding

/// Exchange MTU Response: the server states the largest ATT PDU it can receive.
///
/// `03 · server Rx MTU (u16)`.
///
/// Core 5.3 Vol 3 Part F §3.4.2.2.
public struct ATTExchangeMTUResponse: ATTProtocolDataUnit {
    public static let opcode = ATTOpcode.exchangeMTUResponse

    public var serverRxMTU: UInt16

    public init(serverRxMTU: UInt16) { self.serverRxMTU = serverRxMTU }

    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = try Self.reader(for: bytes)
        serverRxMTU = try reader.readUInt16("server Rx MTU")
        try reader.expectEnd("Exchange MTU Response")
    }

    public func encode() -> [UInt8] {
        var writer = Self.writer(capacity: 3)
        writer.write(serverRxMTU)
        return writer.bytes
    }
}
