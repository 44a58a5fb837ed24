import ByteCoding
import Foundation
import HealthKitModel
import WorkoutEngine

/// One message of the mirroring protocol between a primary workout session and its companion.
///
/// The protocol runs over any reliable, ordered byte stream (``MirrorByteStream``: a Unix stream socket beside the
/// store file today; TCP or TLS could follow unchanged). Every frame is a header and a payload, little-endian:
///
/// ```text
/// offset  size  field
/// 0       1     kind (below)
/// 1       4     payload length N (UInt32), at most ``maximumPayload``
/// 5       N     payload
/// ```
///
/// Dates are `timeIntervalSinceReferenceDate` as the 8 bytes of an IEEE 754 Float64. Kinds and payloads:
///
/// | kind | name | from | payload |
/// |---|---|---|---|
/// | 0x01 | start | primary | version u8 (1), activity type u32, location type u8, swimming location u8, state u8, has start u8, start date f64 |
/// | 0x02 | accepted | companion | version u8 (1): the companion's handler has the mirrored session |
/// | 0x03 | state | primary | from u8, to u8, date f64 (HKWorkoutSessionState raw values) |
/// | 0x04 | event | primary | event type u8 (HKWorkoutEventType raw value), date f64 |
/// | 0x05 | request | companion | 1 pause, 2 resume, 3 stop, 4 end: the primary carries it out |
/// | 0x06 | data | either | the bytes an app sent with `sendToRemoteWorkoutSession(data:)` |
/// | 0x07 | stop | either | empty: mirroring stops cleanly (`stopMirroringToCompanionDevice()`, or the session ended) |
/// | 0x08 | activity began | primary | activity type u32, location type u8, swimming location u8, date f64 |
/// | 0x09 | activity ended | primary | date f64 |
///
/// The primary opens with `start`; the companion answers `accepted` (or closes the stream if it has no handler).
/// Then frames flow both ways in order. A stream that ends without `stop` is a lost peer.
enum MirrorFrame: Equatable, Sendable {
    case start(configuration: Configuration, state: HKWorkoutSessionState, startDate: Date?)
    case accepted
    case state(from: HKWorkoutSessionState, to: HKWorkoutSessionState, date: Date)
    case event(HKWorkoutEventType, date: Date)
    case request(Request)
    case data(Data)
    case stop
    case activityBegan(Configuration, date: Date)
    case activityEnded(date: Date)

    /// The protocol version this build speaks.
    static let version: UInt8 = 1
    /// How long a primary waits for the companion's `accepted`.
    static let answerTimeout: Duration = .seconds(5)
    /// The largest payload: 1 MiB. `sendToRemoteWorkoutSession` refuses more with `errorDataSizeExceeded`.
    static let maximumPayload = 1 << 20

    /// What the companion asks the primary to do.
    enum Request: UInt8, Sendable {
        case pause = 1, resume = 2, stop = 3, end = 4
    }

    /// The parts of a workout configuration the companion's session carries.
    struct Configuration: Equatable, Sendable {
        var activityType: HKWorkoutActivityType
        var locationType: HKWorkoutSessionLocationType
        var swimmingLocationType: HKWorkoutSwimmingLocationType

        init(_ configuration: HKWorkoutConfiguration) {
            activityType = configuration.activityType
            locationType = configuration.locationType
            swimmingLocationType = configuration.swimmingLocationType
        }

        init(
            activityType: HKWorkoutActivityType, locationType: HKWorkoutSessionLocationType,
            swimmingLocationType: HKWorkoutSwimmingLocationType
        ) {
            self.activityType = activityType
            self.locationType = locationType
            self.swimmingLocationType = swimmingLocationType
        }

        var workoutConfiguration: HKWorkoutConfiguration {
            let configuration = HKWorkoutConfiguration()
            configuration.activityType = activityType
            configuration.locationType = locationType
            configuration.swimmingLocationType = swimmingLocationType
            return configuration
        }
    }

    var kind: UInt8 {
        switch self {
        case .start: 0x01
        case .accepted: 0x02
        case .state: 0x03
        case .event: 0x04
        case .request: 0x05
        case .data: 0x06
        case .stop: 0x07
        case .activityBegan: 0x08
        case .activityEnded: 0x09
        }
    }

    /// The frame's bytes: header and payload.
    var encoded: [UInt8] {
        var payload = ByteWriter()
        switch self {
        case let .start(configuration, state, startDate):
            payload.write(Self.version)
            Self.write(configuration, to: &payload)
            payload.write(UInt8(truncatingIfNeeded: state.rawValue))
            payload.write(UInt8(startDate == nil ? 0 : 1))
            payload.write(
                (startDate ?? Date(timeIntervalSinceReferenceDate: 0)).timeIntervalSinceReferenceDate.bitPattern)
        case .accepted:
            payload.write(Self.version)
        case let .state(from, to, date):
            payload.write(UInt8(truncatingIfNeeded: from.rawValue))
            payload.write(UInt8(truncatingIfNeeded: to.rawValue))
            payload.write(date.timeIntervalSinceReferenceDate.bitPattern)
        case let .event(type, date):
            payload.write(UInt8(truncatingIfNeeded: type.rawValue))
            payload.write(date.timeIntervalSinceReferenceDate.bitPattern)
        case .request(let request):
            payload.write(request.rawValue)
        case .data(let data):
            payload.write(contentsOf: data)
        case .stop:
            break
        case let .activityBegan(configuration, date):
            Self.write(configuration, to: &payload)
            payload.write(date.timeIntervalSinceReferenceDate.bitPattern)
        case .activityEnded(let date):
            payload.write(date.timeIntervalSinceReferenceDate.bitPattern)
        }
        var frame = ByteWriter(capacity: 5 + payload.bytes.count)
        frame.write(kind)
        frame.write(UInt32(payload.bytes.count))
        frame.write(contentsOf: payload.bytes)
        return frame.bytes
    }

    private static func write(_ configuration: Configuration, to payload: inout ByteWriter) {
        payload.write(UInt32(truncatingIfNeeded: configuration.activityType.rawValue))
        payload.write(UInt8(truncatingIfNeeded: configuration.locationType.rawValue))
        payload.write(UInt8(truncatingIfNeeded: configuration.swimmingLocationType.rawValue))
    }

    /// Decodes one frame's payload. `offset` is where the payload starts in the stream, for error messages.
    static func decode(kind: UInt8, payload: [UInt8], offset: Int) throws(DecodeError) -> MirrorFrame {
        do {
            return try decodePayload(kind: kind, payload: payload)
        } catch {
            throw DecodeError(error.reason, at: offset + error.offset)
        }
    }

    /// Decodes a payload; offsets in errors count from the payload's first byte (the kind byte is at -5).
    private static func decodePayload(kind: UInt8, payload: [UInt8]) throws(DecodeError) -> MirrorFrame {
        var reader = ByteReader(payload)
        func date(_ field: String) throws(DecodeError) -> Date {
            let bits = try reader.readUInt64(field)
            let seconds = Double(bitPattern: bits)
            guard seconds.isFinite else { throw DecodeError("\(field) is not a finite date", at: reader.offset - 8) }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        func state(_ field: String) throws(DecodeError) -> HKWorkoutSessionState {
            let raw = try reader.readUInt8(field)
            guard let state = HKWorkoutSessionState(rawValue: Int(raw)) else {
                throw DecodeError("\(field) \(raw) is not a workout session state", at: reader.offset - 1)
            }
            return state
        }
        func configuration() throws(DecodeError) -> Configuration {
            let at = reader.offset
            let activityRaw = try reader.readUInt32("activity type")
            guard let activity = HKWorkoutActivityType(rawValue: UInt(activityRaw)) else {
                throw DecodeError("activity type \(activityRaw) is unknown", at: at)
            }
            let locationRaw = try reader.readUInt8("location type")
            let swimmingRaw = try reader.readUInt8("swimming location type")
            guard let location = HKWorkoutSessionLocationType(rawValue: Int(locationRaw)),
                let swimming = HKWorkoutSwimmingLocationType(rawValue: Int(swimmingRaw))
            else {
                throw DecodeError("location type \(locationRaw)/\(swimmingRaw) is unknown", at: at + 4)
            }
            return Configuration(activityType: activity, locationType: location, swimmingLocationType: swimming)
        }
        let frame: MirrorFrame
        switch kind {
        case 0x01:
            let version = try reader.readUInt8("version")
            guard version == Self.version else {
                throw DecodeError(
                    "protocol version \(version) is not supported (this build speaks \(Self.version))", at: 0)
            }
            let configuration = try configuration()
            let current = try state("state")
            let hasStart = try reader.readUInt8("has start date")
            let start = try date("start date")
            frame = .start(configuration: configuration, state: current, startDate: hasStart == 0 ? nil : start)
        case 0x02:
            let version = try reader.readUInt8("version")
            guard version == Self.version else {
                throw DecodeError(
                    "protocol version \(version) is not supported (this build speaks \(Self.version))", at: 0)
            }
            frame = .accepted
        case 0x03:
            let from = try state("from state")
            let to = try state("to state")
            frame = .state(from: from, to: to, date: try date("date"))
        case 0x04:
            let raw = try reader.readUInt8("event type")
            guard let type = HKWorkoutEventType(rawValue: Int(raw)) else {
                throw DecodeError("event type \(raw) is unknown", at: 0)
            }
            frame = .event(type, date: try date("date"))
        case 0x05:
            let raw = try reader.readUInt8("request")
            guard let request = Request(rawValue: raw) else { throw DecodeError("request \(raw) is unknown", at: 0) }
            frame = .request(request)
        case 0x06:
            return .data(Data(payload))
        case 0x07:
            frame = .stop
        case 0x08:
            let configuration = try configuration()
            frame = .activityBegan(configuration, date: try date("date"))
        case 0x09:
            frame = .activityEnded(date: try date("date"))
        default:
            throw DecodeError("frame kind 0x\(String(kind, radix: 16)) is unknown", at: -5)
        }
        guard reader.isAtEnd else {
            throw DecodeError(
                "\(reader.remaining) unexpected bytes after a frame of kind 0x\(String(kind, radix: 16))",
                at: reader.offset)
        }
        return frame
    }
}

/// Cuts a byte stream into ``MirrorFrame``s: bytes go in as they arrive, whole frames come out.
struct MirrorFrameDecoder: Sendable {
    private var buffer: [UInt8] = []
    /// Stream offset of `buffer[0]`.
    private var consumed = 0

    /// Adds bytes and returns the frames now complete, in order.
    mutating func append(_ bytes: [UInt8]) throws(DecodeError) -> [MirrorFrame] {
        buffer.append(contentsOf: bytes)
        var frames: [MirrorFrame] = []
        var start = 0
        while buffer.count - start >= 5 {
            var header = ByteReader(Array(buffer[start ..< start + 5]))
            let kind = try header.readUInt8("kind")
            let length = Int(try header.readUInt32("length"))
            guard length <= MirrorFrame.maximumPayload else {
                throw DecodeError(
                    "a frame's payload of \(length) bytes exceeds \(MirrorFrame.maximumPayload)",
                    at: consumed + start + 1)
            }
            guard buffer.count - start - 5 >= length else { break }
            let payload = Array(buffer[start + 5 ..< start + 5 + length])
            frames.append(try MirrorFrame.decode(kind: kind, payload: payload, offset: consumed + start + 5))
            start += 5 + length
        }
        buffer.removeFirst(start)
        consumed += start
        return frames
    }

    /// Whether a frame was cut off: bytes are left that do not make a whole frame.
    var hasPartialFrame: Bool { !buffer.isEmpty }
}
