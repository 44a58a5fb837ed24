import FITFile
import OpenHealthKit

/// HealthKit's activity type and location to FIT sport and sub-sport, and to the TCX `Sport` attribute: the inverse
/// of the import's mapping (`FITSportMapping`), so an exported workout imports with the same type and location.
/// Indoor cycling is `cycling/indoor_cycling`, outdoor `cycling/road`; indoor running `running/treadmill`, outdoor
/// `running/street`; swimming indoor `lap_swimming`, outdoor `open_water`; indoor rowing
/// `fitness_equipment/indoor_rowing`. Types FIT has no sport for are `generic`.
enum ExportSportMapping {
    static func fit(_ type: HKWorkoutActivityType, _ location: HKWorkoutSessionLocationType) -> (FITSport, FITSubSport)
    {
        let indoor = location == .indoor, outdoor = location == .outdoor
        switch type {
        case .cycling: return (.cycling, indoor ? .indoorCycling : outdoor ? .road : .generic)
        case .handCycling: return (.cycling, .handCycling)
        case .running: return (.running, indoor ? .treadmill : outdoor ? .street : .generic)
        case .walking: return (.walking, indoor ? .indoorWalking : outdoor ? .street : .generic)
        case .hiking: return (.hiking, outdoor ? .trail : .generic)
        case .swimming: return (.swimming, indoor ? .lapSwimming : outdoor ? .openWater : .generic)
        case .rowing: return indoor ? (.fitnessEquipment, .indoorRowing) : (.rowing, .generic)
        case .transition: return (.transition, .generic)
        case .swimBikeRun: return (.multisport, .generic)
        case .elliptical: return (.fitnessEquipment, .elliptical)
        case .stairClimbing: return (.fitnessEquipment, .stairClimbing)
        case .crossCountrySkiing: return (.crossCountrySkiing, .generic)
        case .downhillSkiing: return (.alpineSkiing, .generic)
        case .snowboarding: return (.snowboarding, .generic)
        case .paddleSports: return (.paddling, .generic)
        case .golf: return (.golf, .generic)
        case .soccer: return (.soccer, .generic)
        case .tennis: return (.tennis, .generic)
        case .basketball: return (.basketball, .generic)
        case .americanFootball: return (.americanFootball, .generic)
        case .traditionalStrengthTraining: return (.training, .generic)
        default: return (.generic, .generic)
        }
    }

    /// TCX `Sport`: Running, Biking or Other (the TrainingCenterDatabase v2 schema's `Sport_t`).
    static func tcx(_ type: HKWorkoutActivityType) -> String {
        switch type {
        case .running, .walking, .hiking: "Running"
        case .cycling, .handCycling: "Biking"
        default: "Other"
        }
    }
}
