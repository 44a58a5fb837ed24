/// `sport` (FIT profile type `sport`, uint8 enum): the values an activity file uses.
public struct FITSport: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let generic = FITSport(rawValue: 0)
    public static let running = FITSport(rawValue: 1)
    public static let cycling = FITSport(rawValue: 2)
    public static let transition = FITSport(rawValue: 3)
    public static let fitnessEquipment = FITSport(rawValue: 4)
    public static let swimming = FITSport(rawValue: 5)
    public static let basketball = FITSport(rawValue: 6)
    public static let soccer = FITSport(rawValue: 7)
    public static let tennis = FITSport(rawValue: 8)
    public static let americanFootball = FITSport(rawValue: 9)
    public static let training = FITSport(rawValue: 10)
    public static let walking = FITSport(rawValue: 11)
    public static let crossCountrySkiing = FITSport(rawValue: 12)
    public static let alpineSkiing = FITSport(rawValue: 13)
    public static let snowboarding = FITSport(rawValue: 14)
    public static let rowing = FITSport(rawValue: 15)
    public static let mountaineering = FITSport(rawValue: 16)
    public static let hiking = FITSport(rawValue: 17)
    public static let multisport = FITSport(rawValue: 18)
    public static let paddling = FITSport(rawValue: 19)
    public static let eBiking = FITSport(rawValue: 21)
    public static let golf = FITSport(rawValue: 25)
    public static let kayaking = FITSport(rawValue: 41)
}

/// `sub_sport` (FIT profile type `sub_sport`, uint8 enum): the values an activity file uses.
public struct FITSubSport: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let generic = FITSubSport(rawValue: 0)
    public static let treadmill = FITSubSport(rawValue: 1)
    public static let street = FITSubSport(rawValue: 2)
    public static let trail = FITSubSport(rawValue: 3)
    public static let track = FITSubSport(rawValue: 4)
    public static let spin = FITSubSport(rawValue: 5)
    public static let indoorCycling = FITSubSport(rawValue: 6)
    public static let road = FITSubSport(rawValue: 7)
    public static let mountain = FITSubSport(rawValue: 8)
    public static let downhill = FITSubSport(rawValue: 9)
    public static let recumbent = FITSubSport(rawValue: 10)
    public static let cyclocross = FITSubSport(rawValue: 11)
    public static let handCycling = FITSubSport(rawValue: 12)
    public static let trackCycling = FITSubSport(rawValue: 13)
    public static let indoorRowing = FITSubSport(rawValue: 14)
    public static let elliptical = FITSubSport(rawValue: 15)
    public static let stairClimbing = FITSubSport(rawValue: 16)
    public static let lapSwimming = FITSubSport(rawValue: 17)
    public static let openWater = FITSubSport(rawValue: 18)
    public static let indoorWalking = FITSubSport(rawValue: 27)
    public static let gravelCycling = FITSubSport(rawValue: 46)
    public static let virtualActivity = FITSubSport(rawValue: 58)
    public static let indoorRunning = FITSubSport(rawValue: 45)
}

/// `event` (FIT profile type `event`): the ones an activity file uses.
public struct FITEvent: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let timer = FITEvent(rawValue: 0)
    public static let session = FITEvent(rawValue: 8)
    public static let lap = FITEvent(rawValue: 9)
    public static let coursePoint = FITEvent(rawValue: 10)
    public static let activity = FITEvent(rawValue: 26)
}

/// `event_type` (FIT profile type `event_type`).
public struct FITEventType: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let start = FITEventType(rawValue: 0)
    public static let stop = FITEventType(rawValue: 1)
    public static let consecutiveDepreciated = FITEventType(rawValue: 2)
    public static let marker = FITEventType(rawValue: 3)
    public static let stopAll = FITEventType(rawValue: 4)
    public static let beginDepreciated = FITEventType(rawValue: 5)
    public static let endDepreciated = FITEventType(rawValue: 6)
    public static let endAllDepreciated = FITEventType(rawValue: 7)
    public static let stopDisable = FITEventType(rawValue: 8)
    public static let stopDisableAll = FITEventType(rawValue: 9)
}

/// `file` (FIT profile type `file`): the file types of `file_id.type`.
public struct FITFileType: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let device = FITFileType(rawValue: 1)
    public static let settings = FITFileType(rawValue: 2)
    public static let sport = FITFileType(rawValue: 3)
    public static let activity = FITFileType(rawValue: 4)
    public static let workout = FITFileType(rawValue: 5)
    public static let course = FITFileType(rawValue: 6)
}

/// `manufacturer` (FIT profile type `manufacturer`, uint16): names of the makers whose files are most common.
/// Unlisted numbers are kept as numbers.
public enum FITManufacturer {
    public static let names: [UInt16: String] = [
        1: "Garmin", 9: "Saris", 13: "Dynastream OEM", 15: "Dynastream", 23: "Suunto", 32: "Wahoo Fitness",
        38: "Osynce", 40: "Concept2", 41: "Shimano", 48: "Pioneer", 63: "Specialized", 69: "Stages Cycling",
        70: "Sigma Sport",
        73: "Wattbike", 76: "Moxy", 81: "Bontrager", 89: "Tacx", 95: "Stryd", 107: "Magene", 123: "Polar",
        255: "Development", 260: "Zwift", 263: "Favero Electronics", 265: "Strava", 267: "Bryton",
        282: "The Sufferfest",
        289: "Hammerhead", 294: "Coros", 307: "OneLap", 309: "Form",
    ]

    /// The maker's name, or "manufacturer N".
    public static func name(_ number: UInt16) -> String { names[number] ?? "manufacturer \(number)" }
}
