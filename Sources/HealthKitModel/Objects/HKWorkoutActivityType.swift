/// The kind of activity a workout or a workout activity is.
///
/// Raw values are HealthKit's. HealthKit: HKWorkoutActivityType.
public enum HKWorkoutActivityType: UInt, Sendable, Hashable, CaseIterable {
    case americanFootball = 1
    case archery = 2
    case australianFootball = 3
    case badminton = 4
    case baseball = 5
    case basketball = 6
    case bowling = 7
    case boxing = 8
    case climbing = 9
    case cricket = 10
    case crossTraining = 11
    case curling = 12
    case cycling = 13
    case dance = 14
    case danceInspiredTraining = 15
    case elliptical = 16
    case equestrianSports = 17
    case fencing = 18
    case fishing = 19
    case functionalStrengthTraining = 20
    case golf = 21
    case gymnastics = 22
    case handball = 23
    case hiking = 24
    case hockey = 25
    case hunting = 26
    case lacrosse = 27
    case martialArts = 28
    case mindAndBody = 29
    case mixedMetabolicCardioTraining = 30
    case paddleSports = 31
    case play = 32
    case preparationAndRecovery = 33
    case racquetball = 34
    case rowing = 35
    case rugby = 36
    case running = 37
    case sailing = 38
    case skatingSports = 39
    case snowSports = 40
    case soccer = 41
    case softball = 42
    case squash = 43
    case stairClimbing = 44
    case surfingSports = 45
    case swimming = 46
    case tableTennis = 47
    case tennis = 48
    case trackAndField = 49
    case traditionalStrengthTraining = 50
    case volleyball = 51
    case walking = 52
    case waterFitness = 53
    case waterPolo = 54
    case waterSports = 55
    case wrestling = 56
    case yoga = 57
    case barre = 58
    case coreTraining = 59
    case crossCountrySkiing = 60
    case downhillSkiing = 61
    case flexibility = 62
    case highIntensityIntervalTraining = 63
    case jumpRope = 64
    case kickboxing = 65
    case pilates = 66
    case snowboarding = 67
    case stairs = 68
    case stepTraining = 69
    case wheelchairWalkPace = 70
    case wheelchairRunPace = 71
    case taiChi = 72
    case mixedCardio = 73
    case handCycling = 74
    case discSports = 75
    case fitnessGaming = 76
    case cardioDance = 77
    case socialDance = 78
    case pickleball = 79
    case cooldown = 80
    case swimBikeRun = 82
    case transition = 83
    case underwaterDiving = 84
    case other = 3000

    /// The activity's name, as a person reads it (OpenHealthKit; used by the `workout` tool).
    public var name: String {
        switch self {
        case .americanFootball: "american football"
        case .archery: "archery"
        case .australianFootball: "australian football"
        case .badminton: "badminton"
        case .baseball: "baseball"
        case .basketball: "basketball"
        case .bowling: "bowling"
        case .boxing: "boxing"
        case .climbing: "climbing"
        case .cricket: "cricket"
        case .crossTraining: "cross training"
        case .curling: "curling"
        case .cycling: "cycling"
        case .dance: "dance"
        case .danceInspiredTraining: "dance inspired training"
        case .elliptical: "elliptical"
        case .equestrianSports: "equestrian sports"
        case .fencing: "fencing"
        case .fishing: "fishing"
        case .functionalStrengthTraining: "functional strength training"
        case .golf: "golf"
        case .gymnastics: "gymnastics"
        case .handball: "handball"
        case .hiking: "hiking"
        case .hockey: "hockey"
        case .hunting: "hunting"
        case .lacrosse: "lacrosse"
        case .martialArts: "martial arts"
        case .mindAndBody: "mind and body"
        case .mixedMetabolicCardioTraining: "mixed metabolic cardio training"
        case .paddleSports: "paddle sports"
        case .play: "play"
        case .preparationAndRecovery: "preparation and recovery"
        case .racquetball: "racquetball"
        case .rowing: "rowing"
        case .rugby: "rugby"
        case .running: "running"
        case .sailing: "sailing"
        case .skatingSports: "skating sports"
        case .snowSports: "snow sports"
        case .soccer: "soccer"
        case .softball: "softball"
        case .squash: "squash"
        case .stairClimbing: "stair climbing"
        case .surfingSports: "surfing sports"
        case .swimming: "swimming"
        case .tableTennis: "table tennis"
        case .tennis: "tennis"
        case .trackAndField: "track and field"
        case .traditionalStrengthTraining: "traditional strength training"
        case .volleyball: "volleyball"
        case .walking: "walking"
        case .waterFitness: "water fitness"
        case .waterPolo: "water polo"
        case .waterSports: "water sports"
        case .wrestling: "wrestling"
        case .yoga: "yoga"
        case .barre: "barre"
        case .coreTraining: "core training"
        case .crossCountrySkiing: "cross country skiing"
        case .downhillSkiing: "downhill skiing"
        case .flexibility: "flexibility"
        case .highIntensityIntervalTraining: "high-intensity interval training"
        case .jumpRope: "jump rope"
        case .kickboxing: "kickboxing"
        case .pilates: "pilates"
        case .snowboarding: "snowboarding"
        case .stairs: "stairs"
        case .stepTraining: "step training"
        case .wheelchairWalkPace: "wheelchair walk pace"
        case .wheelchairRunPace: "wheelchair run pace"
        case .taiChi: "tai chi"
        case .mixedCardio: "mixed cardio"
        case .handCycling: "hand cycling"
        case .discSports: "disc sports"
        case .fitnessGaming: "fitness gaming"
        case .cardioDance: "cardio dance"
        case .socialDance: "social dance"
        case .pickleball: "pickleball"
        case .cooldown: "cooldown"
        case .swimBikeRun: "swim-bike-run"
        case .transition: "transition"
        case .underwaterDiving: "underwater diving"
        case .other: "other"
        }
    }

    /// The activity type for a name as ``name`` spells it, or as the case is spelled (`swimBikeRun`).
    public init?(name: String) {
        let wanted = name.lowercased()
        guard let match = Self.allCases.first(where: { $0.name == wanted || "\($0)".lowercased() == wanted }) else {
            return nil
        }
        self = match
    }
}
