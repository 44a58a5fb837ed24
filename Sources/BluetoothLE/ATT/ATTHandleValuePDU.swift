import ByteCoding

/// The PDUs laid out as `opcode · handle (u16) · value (the rest)`: Write Request, Write Command, Handle Value
/// Notification and Indication. They share one decoder and encoder; each only names its opcode.
///
/// Core 5.3 Vol 3 Part F §3.4.5.1, §3.4.5.3, §3.4.7.1, §3.4.7.2.
public protocol ATTHandleValuePDU: ATTProtocolDataUnit {
    var handle: UInt16 { get }
    var value: [UInt8] { get }
    init(handle: UInt16, value: [UInt8])
}

extension ATTHandleValuePDU {
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = try Self.reader(for: bytes)
        let handle = try reader.readUInt16("attribute handle")
        self.init(handle: handle, value: Array(reader.readRemaining()))
    }

    public func encode() -> [UInt8] {
        var writer = Self.writer(capacity: 3 + value.count)
        writer.write(handle)
        writer.write(contentsOf: value)
        return writer.bytes
    }
}

/// The PDUs laid out as `opcode · value (the rest)`: Read Response and Read Blob Response.
///
/// Core 5.3 Vol 3 Part F §3.4.4.4, §3.4.4.6.
public protocol ATTValuePDU: ATTProtocolDataUnit {
    var value: [UInt8] { get }
    init(value: [UInt8])
}

extension ATTValuePDU {
    public init(bytes: [UInt8]) throws(DecodeError) {
        var reader = try Self.reader(for: bytes)
        self.init(value: Array(reader.readRemaining()))
    }

    public func encode() -> [UInt8] { [Self.opcode.rawValue] + value }
}
