import Foundation

/// One timestamped line of a fixture after the header.
///
/// Times are whole milliseconds from the header's `start` and never go backwards. Sensors are named by their
/// index in the header's `sensors`, which the reader resolves from the `"s"` id.
public struct FixtureEvent: Hashable, Sendable {
    /// Milliseconds since the recording started.
    public var time: Int64
    public var kind: Kind

    public enum Kind: Hashable, Sendable {
        /// Raw notification (or read) bytes of a characteristic, exactly as they arrived.
        case notification(sensor: Int, characteristic: UInt16, bytes: [UInt8])
        /// The sensor's link changed.
        case connection(sensor: Int, state: SensorConnectionState)
        /// Something the person did to the session.
        case action(FixtureAction)
    }

    public init(time: Int64, kind: Kind) {
        self.time = time
        self.kind = kind
    }

    /// Seconds since the recording started.
    public var seconds: TimeInterval { Double(time) / 1000 }
}

/// A session action recorded in a fixture.
public enum FixtureAction: Hashable, Sendable {
    /// A new activity (a leg, an interval) begins, ending the current one; names as in the header's session.
    case beginActivity(activity: String, location: String?)
    /// The current activity ends; the session returns to its main activity.
    case endActivity
    case pause
    case resume
    /// A lap ends here (it began at the previous lap or the start).
    case lap
    /// A marker (a point of interest).
    case marker
    /// The session ends here.
    case end

    /// The `"action"` value.
    public var name: String {
        switch self {
        case .beginActivity: "beginActivity"
        case .endActivity: "endActivity"
        case .pause: "pause"
        case .resume: "resume"
        case .lap: "lap"
        case .marker: "marker"
        case .end: "end"
        }
    }

    static let names = ["beginActivity", "endActivity", "pause", "resume", "lap", "marker", "end"]
}

extension FixtureEvent {
    /// The event as one JSON line (no newline), naming sensors by `ids`.
    ///
    /// Hand-written, not `JSONEncoder`: it runs once per notification while recording and generating.
    public func encodedLine(sensorIDs ids: [String]) -> String {
        var line = "{\"t\":" + FixtureTime.seconds(milliseconds: time)
        switch kind {
        case let .notification(sensor, characteristic, bytes):
            line += ",\"s\":" + JSONText.quoted(ids[sensor]) + ",\"c\":\"" + Hex.uuid(characteristic) + "\",\"v\":\""
            line += Hex.string(bytes) + "\""
        case let .connection(sensor, state):
            line += ",\"s\":" + JSONText.quoted(ids[sensor]) + ",\"connection\":"
            switch state {
            case .connecting: line += "\"connecting\""
            case .connected: line += "\"connected\""
            case .disconnected(let reason):
                line += "\"disconnected\""
                if let reason { line += ",\"reason\":" + JSONText.quoted(reason) }
            }
        case .action(let action):
            line += ",\"action\":\"" + action.name + "\""
            if case let .beginActivity(activity, location) = action {
                line += ",\"activity\":" + JSONText.quoted(activity)
                if let location { line += ",\"location\":" + JSONText.quoted(location) }
            }
        }
        return line + "}"
    }
}

/// Hexadecimal text for bytes and 16-bit UUIDs.
public enum Hex {
    private static let digits = Array("0123456789ABCDEF".utf8)

    /// Upper-case hex, two digits per byte, no separators.
    public static func string(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Four upper-case hex digits.
    public static func uuid(_ value: UInt16) -> String {
        string([UInt8(value >> 8), UInt8(value & 0xFF)])
    }

    /// The value of one hex digit (either case), or nil.
    @inline(__always)
    static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30 ... 0x39: c - 0x30
        case 0x41 ... 0x46: c - 0x41 + 10
        case 0x61 ... 0x66: c - 0x61 + 10
        default: nil
        }
    }

    /// Bytes from hex text of even length; nil when it is not.
    public static func bytes<C: Collection>(_ text: C) -> [UInt8]? where C.Element == UInt8 {
        guard text.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(text.count / 2)
        var index = text.startIndex
        while index != text.endIndex {
            let next = text.index(after: index)
            guard let high = nibble(text[index]), let low = nibble(text[next]) else { return nil }
            out.append(high << 4 | low)
            index = text.index(after: next)
        }
        return out
    }
}

/// JSON string quoting for the few strings event lines carry.
enum JSONText {
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
