/// The GATT profiles this package reads, as data: which services a sensor may offer, which characteristics of
/// them carry measurements (subscribed to), which are read once at connection, and what a device with a service
/// can measure.
///
/// Every transport (raw ATT over L2CAP, bluetoothd over D-Bus, a simulated peripheral) asks this table what to
/// discover, read and subscribe to, and hands what arrives, as (characteristic, bytes), to
/// ``SensorReadingInterpreter/readings(fromValue:of:at:)``. So a profile added here reaches every transport.
///
/// Bluetooth HRS 1.0, CPS 1.1, CSCS 1.0, RSCS 1.0, FTMS 1.0, BAS 1.0, DIS 1.1.
public enum FitnessProfiles {
    typealias S = GATTAssignedNumbers.Service
    typealias C = GATTAssignedNumbers.Characteristic

    /// One service: what it is, what to subscribe to, what to read, what a device with it measures.
    public struct Profile: Sendable {
        public var service: UInt16
        /// Characteristics notified (or indicated) with measurements, in the order to subscribe.
        public var measurements: [UInt16]
        /// Characteristics read once at connection whose values matter to the interpreter or to control.
        public var reads: [UInt16]
        /// Other characteristics to subscribe to when offered, that are not measurements (status, control point).
        public var indications: [UInt16]
        public var capabilities: SensorCapabilities
        /// The service's name, for messages.
        public var name: String
    }

    /// The profiles that make a device a sensor, in the order a transport subscribes.
    public static let measuring: [Profile] = [
        Profile(
            service: S.heartRate, measurements: [C.heartRateMeasurement], reads: [], indications: [],
            capabilities: [.heartRate, .rrIntervals, .energy], name: "heart rate"),
        Profile(
            service: S.cyclingPower, measurements: [C.cyclingPowerMeasurement], reads: [], indications: [],
            capabilities: [.power, .cadence, .speed, .distance, .energy], name: "cycling power"),
        Profile(
            service: S.cyclingSpeedAndCadence, measurements: [C.cscMeasurement], reads: [], indications: [],
            capabilities: [.cadence, .speed, .distance], name: "speed and cadence"),
        Profile(
            service: S.runningSpeedAndCadence, measurements: [C.rscMeasurement], reads: [C.rscFeature],
            indications: [], capabilities: [.speed, .steps, .distance], name: "running speed and cadence"),
        Profile(
            service: S.fitnessMachine,
            measurements: [C.indoorBikeData, C.treadmillData, C.rowerData, C.crossTrainerData],
            reads: [
                C.fitnessMachineFeature, C.supportedPowerRange, C.supportedResistanceLevelRange,
                C.supportedInclinationRange, C.supportedSpeedRange,
            ],
            indications: [C.fitnessMachineControlPoint, C.fitnessMachineStatus, C.trainingStatus],
            capabilities: [.power, .cadence, .speed, .distance, .energy, .control], name: "fitness machine"),
    ]

    /// Services read for what they tell about the device, not measured from.
    public static let auxiliaryServices: [UInt16] = [S.battery, S.deviceInformation]

    /// Every characteristic that carries a measurement, in the order a transport subscribes.
    public static let measurementCharacteristics: [UInt16] = measuring.flatMap(\.measurements)

    /// Characteristics to subscribe to when offered besides measurements and battery.
    public static let indicationCharacteristics: [UInt16] = measuring.flatMap(\.indications)

    /// Characteristics read once at connection and handed to the interpreter.
    public static let readCharacteristics: [UInt16] = measuring.flatMap(\.reads)

    /// Whether a transport should discover a service's characteristics.
    public static func isRelevant(service: UInt16) -> Bool {
        measuring.contains { $0.service == service } || auxiliaryServices.contains(service)
    }

    /// What a device with these services can measure.
    public static func capabilities(ofServices services: [UInt16]) -> SensorCapabilities {
        var capabilities: SensorCapabilities = []
        for service in services {
            if let profile = measuring.first(where: { $0.service == service }) {
                capabilities.formUnion(profile.capabilities)
            }
            if service == S.battery { capabilities.insert(.battery) }
        }
        return capabilities
    }

    /// The names of the measuring services, for a message that none was found ("heart rate, cycling power, …").
    public static var measuringNames: String { measuring.map(\.name).joined(separator: ", ") }
}
