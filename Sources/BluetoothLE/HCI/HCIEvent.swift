import ByteCoding

/// An HCI event, decoded from `event code u8 · parameter length u8 · parameters`.
///
/// Events this package does not model keep their parameters raw. ``decode(_:)`` never traps: it
/// returns a value or throws a `DecodeError` with the offset of the offending byte.
///
/// Core 5.3 Vol 4 Part E §5.4.4 (event packet) and §7.7 (events).
public enum HCIEvent: Hashable, Sendable {
    case commandComplete(HCICommandComplete)
    case commandStatus(HCICommandStatus)
    case disconnectionComplete(HCIDisconnectionComplete)
    /// LE Meta subevent 0x02: one or more legacy advertising reports.
    case leAdvertisingReport([HCILEAdvertisingReport])
    /// LE Meta subevent 0x0D: one or more extended advertising reports.
    case leExtendedAdvertisingReport([HCILEExtendedAdvertisingReport])
    /// Another LE Meta subevent, parameters after the subevent code kept raw.
    case leMeta(subevent: UInt8, parameters: [UInt8])
    /// Another event, parameters kept raw.
    case unknown(code: UInt8, parameters: [UInt8])

    /// HCI_LE_Meta event code (Core 5.3 Vol 4 Part E §7.7.65).
    public static let leMetaEventCode: UInt8 = 0x3E
    static let leAdvertisingReportSubevent: UInt8 = 0x02
    static let leExtendedAdvertisingReportSubevent: UInt8 = 0x0D

    /// Decodes an H4 event packet (`04 · code · length · parameters`), as read from a raw HCI
    /// socket or a btsnoop 1002 record.
    public static func decode(h4Packet bytes: [UInt8]) throws(DecodeError) -> HCIEvent {
        guard let indicator = bytes.first else { throw DecodeError("expected an H4 packet type, found nothing", at: 0) }
        guard indicator == HCIPacketType.event.rawValue else {
            throw DecodeError("H4 packet type 0x\(hex(indicator)) is not an event", at: 0)
        }
        return try decode(bytes, from: 1)
    }

    /// Decodes an event packet starting at its event code.
    public static func decode(_ bytes: [UInt8]) throws(DecodeError) -> HCIEvent {
        try decode(bytes, from: 0)
    }

    private static func decode(_ bytes: [UInt8], from start: Int) throws(DecodeError) -> HCIEvent {
        var reader = ByteReader(bytes, offset: start)
        let code = try reader.readUInt8("event code")
        let length = Int(try reader.readUInt8("parameter total length"))
        guard reader.remaining == length else {
            throw DecodeError("event parameter length \(length), but \(reader.remaining) bytes follow", at: start + 1)
        }
        let event: HCIEvent
        switch code {
        case HCICommandComplete.eventCode:
            event = .commandComplete(try HCICommandComplete(parameters: &reader))
        case HCICommandStatus.eventCode:
            event = .commandStatus(try HCICommandStatus(parameters: &reader))
        case HCIDisconnectionComplete.eventCode:
            event = .disconnectionComplete(try HCIDisconnectionComplete(parameters: &reader))
        case leMetaEventCode:
            let subevent = try reader.readUInt8("LE subevent code")
            switch subevent {
            case leAdvertisingReportSubevent:
                event = .leAdvertisingReport(
                    try readReports(&reader) { r throws(DecodeError) in try HCILEAdvertisingReport(reading: &r) })
            case leExtendedAdvertisingReportSubevent:
                event = .leExtendedAdvertisingReport(
                    try readReports(&reader) { r throws(DecodeError) in
                        try HCILEExtendedAdvertisingReport(reading: &r)
                    })
            default:
                event = .leMeta(subevent: subevent, parameters: Array(reader.readRemaining()))
            }
        default:
            event = .unknown(code: code, parameters: Array(reader.readRemaining()))
        }
        try reader.expectEnd("event parameters")
        return event
    }

    private static func readReports<Report>(
        _ reader: inout ByteReader, _ read: (inout ByteReader) throws(DecodeError) -> Report
    ) throws(DecodeError) -> [Report] {
        let countOffset = reader.offset
        let count = Int(try reader.readUInt8("Num_Reports"))
        guard count >= 1 else { throw DecodeError("Num_Reports is 0", at: countOffset) }
        var reports: [Report] = []
        for _ in 0 ..< count { reports.append(try read(&reader)) }
        return reports
    }

    /// Encodes the event packet, event code first (no H4 indicator).
    public func encode() -> [UInt8] {
        var parameters = ByteWriter(capacity: 64)
        let code: UInt8
        switch self {
        case .commandComplete(let event):
            code = HCICommandComplete.eventCode
            event.writeParameters(to: &parameters)
        case .commandStatus(let event):
            code = HCICommandStatus.eventCode
            event.writeParameters(to: &parameters)
        case .disconnectionComplete(let event):
            code = HCIDisconnectionComplete.eventCode
            event.writeParameters(to: &parameters)
        case .leAdvertisingReport(let reports):
            code = Self.leMetaEventCode
            parameters.write(Self.leAdvertisingReportSubevent)
            parameters.write(UInt8(truncatingIfNeeded: reports.count))
            for report in reports { report.write(to: &parameters) }
        case .leExtendedAdvertisingReport(let reports):
            code = Self.leMetaEventCode
            parameters.write(Self.leExtendedAdvertisingReportSubevent)
            parameters.write(UInt8(truncatingIfNeeded: reports.count))
            for report in reports { report.write(to: &parameters) }
        case .leMeta(let subevent, let rest):
            code = Self.leMetaEventCode
            parameters.write(subevent)
            parameters.write(contentsOf: rest)
        case .unknown(let unknownCode, let rest):
            code = unknownCode
            parameters.write(contentsOf: rest)
        }
        return [code, UInt8(truncatingIfNeeded: parameters.bytes.count)] + parameters.bytes
    }

    /// Encodes the H4 event packet (`04` first).
    public func encodeH4Packet() -> [UInt8] { [HCIPacketType.event.rawValue] + encode() }
}
