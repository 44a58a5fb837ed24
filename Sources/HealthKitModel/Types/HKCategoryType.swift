import Foundation

/// A type of category sample: a value from a small set over a span of time (a stand hour, a night's sleep stages, a
/// heart-rate notification). Category samples are counted and listed, never summed: there are no statistics of them.
///
/// Created with `HKCategoryType(.sleepAnalysis)` or `HKObjectType.categoryType(forIdentifier: .sleepAnalysis)`;
/// both give equal objects.
///
/// HealthKit: HKCategoryType.
public final class HKCategoryType: HKSampleType, @unchecked Sendable {
    /// The type for an identifier.
    public convenience init(_ identifier: HKCategoryTypeIdentifier) {
        self.init(identifier: identifier.rawValue)
    }

    /// The identifier as an `HKCategoryTypeIdentifier`.
    package var categoryTypeIdentifier: HKCategoryTypeIdentifier { HKCategoryTypeIdentifier(rawValue: identifier) }

    /// The values a sample of this type may hold (HealthKit raises on others; saving one fails here).
    package var validValues: ClosedRange<Int>? {
        CategoryTypeCatalog.values[identifier]
    }

    /// The type for a stored identifier, when it is a category type this version knows.
    package static func known(_ identifier: String) -> HKCategoryType? {
        CategoryTypeCatalog.values[identifier] == nil ? nil : HKCategoryType(identifier: identifier)
    }
}

extension HKObjectType {
    /// The category type for an identifier; nil for one this version does not know.
    /// HealthKit: HKObjectType.categoryType(forIdentifier:).
    public class func categoryType(forIdentifier identifier: HKCategoryTypeIdentifier) -> HKCategoryType? {
        HKCategoryType.known(identifier.rawValue)
    }

    /// Whether reading samples of this type needs the person's permission object by object (HealthKit asks so for
    /// vision prescriptions only). False for every type OpenHealthKit knows.
    /// HealthKit: HKObjectType.requiresPerObjectAuthorization().
    public func requiresPerObjectAuthorization() -> Bool { false }
}

/// Identifiers of category types: the workout-adjacent ones apps request beside workouts. Raw values as HealthKit's.
/// HealthKit: HKCategoryTypeIdentifier.
public struct HKCategoryTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    private static func make(_ suffix: String) -> Self { Self("HKCategoryTypeIdentifier" + suffix) }

    /// Whether the person stood and moved for at least a minute in an hour (`HKCategoryValueAppleStandHour`).
    public static let appleStandHour = make("AppleStandHour")
    /// A mindfulness session (`HKCategoryValue.notApplicable`).
    public static let mindfulSession = make("MindfulSession")
    /// In bed, asleep (by stage) or awake (`HKCategoryValueSleepAnalysis`).
    public static let sleepAnalysis = make("SleepAnalysis")
    /// A heart rate above the person's threshold while inactive (`HKCategoryValue.notApplicable`; the threshold is in
    /// the `HKMetadataKeyHeartRateEventThreshold` metadata).
    public static let highHeartRateEvent = make("HighHeartRateEvent")
    /// A heart rate below the person's threshold (`HKCategoryValue.notApplicable`).
    public static let lowHeartRateEvent = make("LowHeartRateEvent")
    /// An irregular rhythm suggestive of atrial fibrillation (`HKCategoryValue.notApplicable`).
    public static let irregularHeartRhythmEvent = make("IrregularHeartRhythmEvent")
    /// Cardio fitness (VO2 max) low for the person's age and sex (`HKCategoryValueLowCardioFitnessEvent`).
    public static let lowCardioFitnessEvent = make("LowCardioFitnessEvent")
}

/// The category types this version stores, with the values their samples may hold.
package enum CategoryTypeCatalog {
    package static let values: [String: ClosedRange<Int>] = [
        HKCategoryTypeIdentifier.appleStandHour.rawValue: 0 ... 1,
        HKCategoryTypeIdentifier.mindfulSession.rawValue: 0 ... 0,
        HKCategoryTypeIdentifier.sleepAnalysis.rawValue: 0 ... 5,
        HKCategoryTypeIdentifier.highHeartRateEvent.rawValue: 0 ... 0,
        HKCategoryTypeIdentifier.lowHeartRateEvent.rawValue: 0 ... 0,
        HKCategoryTypeIdentifier.irregularHeartRhythmEvent.rawValue: 0 ... 0,
        HKCategoryTypeIdentifier.lowCardioFitnessEvent.rawValue: 1 ... 1,
    ]
}

/// The value of category samples whose types have no values of their own (mindful sessions, heart-rate events).
/// HealthKit: HKCategoryValue.
public enum HKCategoryValue: Int, Sendable, Hashable, CaseIterable {
    case notApplicable = 0
}

/// Sleep analysis values. Raw values as HealthKit's. HealthKit: HKCategoryValueSleepAnalysis.
public enum HKCategoryValueSleepAnalysis: Int, Sendable, Hashable, CaseIterable {
    /// In bed, asleep or not.
    case inBed = 0
    /// Asleep, stage unknown.
    case asleepUnspecified = 1
    /// Awake during the sleep period.
    case awake = 2
    /// Light or intermediate sleep (stages N1 and N2).
    case asleepCore = 3
    /// Deep sleep (stage N3).
    case asleepDeep = 4
    /// REM sleep.
    case asleepREM = 5

    /// HealthKit's name for `asleepUnspecified` before its 16 SDKs.
    @available(*, deprecated, renamed: "asleepUnspecified")
    public static var asleep: Self { .asleepUnspecified }

    /// Every value that means asleep. HealthKit: HKCategoryValueSleepAnalysis.allAsleepValues.
    public static var allAsleepValues: Set<HKCategoryValueSleepAnalysis> {
        [.asleepUnspecified, .asleepCore, .asleepDeep, .asleepREM]
    }
}

/// Stand hour values. Raw values as HealthKit's. HealthKit: HKCategoryValueAppleStandHour.
public enum HKCategoryValueAppleStandHour: Int, Sendable, Hashable, CaseIterable {
    case stood = 0
    case idle = 1
}

/// Low cardio fitness event values. Raw values as HealthKit's. HealthKit: HKCategoryValueLowCardioFitnessEvent.
public enum HKCategoryValueLowCardioFitnessEvent: Int, Sendable, Hashable, CaseIterable {
    case lowFitness = 1
}
