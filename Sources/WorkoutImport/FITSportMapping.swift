import FITFile
import OpenHealthKit

/// FIT sport and sub-sport to HealthKit's activity type and location (indoor or outdoor).
///
/// FIT profile types `sport` and `sub_sport`; HealthKit's `HKWorkoutActivityType`. A sub-sport that says indoor
/// (treadmill, indoor cycling, spin, virtual activity, indoor rowing/running/walking) makes the workout indoor;
/// road, trail, mountain, street, open water make it outdoor; others leave it unknown.
enum FITSportMapping {
    static func activityType(sport: FITSport, subSport: FITSubSport) -> HKWorkoutActivityType {
        switch sport {
        case .running: return .running
        case .cycling, .eBiking: return subSport == .handCycling ? .handCycling : .cycling
        case .transition: return .transition
        case .swimming: return .swimming
        case .walking: return .walking
        case .hiking, .mountaineering: return .hiking
        case .rowing: return .rowing
        case .multisport: return .swimBikeRun
        case .crossCountrySkiing: return .crossCountrySkiing
        case .alpineSkiing: return .downhillSkiing
        case .snowboarding: return .snowboarding
        case .paddling, .kayaking: return .paddleSports
        case .golf: return .golf
        case .soccer: return .soccer
        case .tennis: return .tennis
        case .basketball: return .basketball
        case .americanFootball: return .americanFootball
        case .training: return .traditionalStrengthTraining
        case .fitnessEquipment:
            switch subSport {
            case .indoorRowing: return .rowing
            case .elliptical: return .elliptical
            case .stairClimbing: return .stairClimbing
            case .treadmill, .indoorRunning: return .running
            case .indoorCycling, .spin: return .cycling
            default: return .other
            }
        default: return .other
        }
    }

    static func locationType(sport: FITSport, subSport: FITSubSport) -> HKWorkoutSessionLocationType {
        switch subSport {
        case .treadmill, .indoorCycling, .spin, .virtualActivity, .indoorRowing, .indoorRunning, .indoorWalking,
            .elliptical, .stairClimbing, .lapSwimming:
            return .indoor
        case .road, .trail, .mountain, .street, .openWater, .gravelCycling, .cyclocross, .downhill:
            return .outdoor
        default:
            return sport == .fitnessEquipment ? .indoor : .unknown
        }
    }
}
