import Foundation

/// The part of Garmin's FIT profile an activity file uses: each message's fields with their names, base types,
/// scales, offsets and units (FIT SDK `Profile.xlsx`, version 21.218, through `scripts/generate-fit-profile.py`).
///
/// A stored value converts to its unit as `stored / scale − offset` (FIT protocol, "Scale/Offset"); the encoder
/// inverts it. Fields with several components or sub-fields are described by their first scale and offset
/// (the ones the field itself uses).
public enum FITProfile {
    /// The profile version these tables come from (21.218 encoded as 21218 in a file header).
    public static let version: UInt16 = 21_218

    /// Every message profile here, by global message number.
    public static let messages: [UInt16: FITMessageProfile] = {
        var table: [UInt16: FITMessageProfile] = [:]
        for message in [
            fileId, userProfile, zonesTarget, sport, session, lap, record, event, deviceInfo, activity,
            fileCreator, hrv, hr, fieldDescription, developerDataId,
        ] {
            table[message.number] = message
        }
        return table
    }()

    /// The profile of field `number` of message `message`, nil when the profile here does not list it.
    public static func field(_ number: UInt8, inMessage message: UInt16) -> FITFieldProfile? {
        messages[message]?.fieldsByNumber[Int(number)]
    }

    /// FIT's epoch, 1989-12-31 00:00:00 UTC, as a Unix time (FIT protocol, `date_time`).
    public static let epoch: TimeInterval = 631_065_600

    /// The `Date` of a FIT `date_time` (seconds since 1989-12-31 00:00:00 UTC). Values below 0x10000000 are
    /// seconds since the device powered on, not dates: nil.
    public static func date(_ timestamp: UInt32) -> Date? {
        timestamp < 0x1000_0000 ? nil : Date(timeIntervalSince1970: epoch + TimeInterval(timestamp))
    }

    /// The FIT `date_time` of a date (rounded down to the second).
    public static func timestamp(_ date: Date) -> UInt32 {
        UInt32(clamping: Int64((date.timeIntervalSince1970 - epoch).rounded(.down)))
    }
}

/// A message of the profile: its number, name and fields.
public struct FITMessageProfile: Sendable {
    public let number: UInt16
    public let name: String
    public let fields: [FITFieldProfile]
    let fieldsByNumber: [FITFieldProfile?]

    init(number: UInt16, name: String, fields: [FITFieldProfile]) {
        self.number = number
        self.name = name
        self.fields = fields
        var byNumber = [FITFieldProfile?](repeating: nil, count: 256)
        for field in fields { byNumber[Int(field.number)] = field }
        fieldsByNumber = byNumber
    }
}

/// A field of the profile: its number, name, base type, the profile type it holds (an enum's name, `date_time`,
/// …), scale, offset and units.
public struct FITFieldProfile: Hashable, Sendable {
    public let number: UInt8
    public let name: String
    public let baseType: FITBaseType
    public let type: String
    public let scale: Double
    public let offset: Double
    public let units: String
    public let isArray: Bool

    init(
        _ number: UInt8, _ name: String, _ baseType: FITBaseType, type: String, scale: Double, offset: Double,
        units: String, array: Bool
    ) {
        self.number = number
        self.name = name
        self.baseType = baseType
        self.type = type
        self.scale = scale == 0 ? 1 : scale
        self.offset = offset
        self.units = units
        isArray = array
    }
}
