import BluetoothLE
import FitnessSensors

/// What a simulated peripheral offers: its GATT services, the measurement it notifies, how often,
/// and the signal that fills it.
///
/// The services follow the profiles a real device implements: Heart Rate (HRS 1.0: measurement
/// 0x2A37 notify, body sensor location 0x2A38 read), Cycling Power (CPS 1.1: measurement 0x2A63
/// notify, feature 0x2A65 and sensor location 0x2A5D read), Battery (BAS 1.0: 0x2A19 read and
/// notify) and Device Information (DIS 1.1: strings, read). Like every LE device it also has a Generic Access
/// service whose Device Name (0x2A00, read) is ``name``: what `workout pair` names it, as a phone would.
public struct PeripheralProfile: Sendable {
    /// The kinds the `workout peripheral --profile` option names.
    public enum Kind: String, CaseIterable, Sendable {
        case heartRate = "heart-rate"
        case cyclingPower = "cycling-power"
        case footPod = "foot-pod"
        case smartTrainer = "smart-trainer"
        case treadmill
        case rower
    }

    public var kind: Kind
    /// The Device Name its Generic Access service reads.
    public var name: String
    /// The services of its profile (Generic Access aside: see ``database``).
    public var services: [GATTServiceDefinition]
    /// The characteristic notified at ``interval``.
    public var measurement: BluetoothUUID
    /// The sensor's usual notification period: 1 s for a strap, 0.25 s for a power meter.
    public var interval: Duration

    /// The Supported Power Range (0x2AD8) its services offer, if they do.
    public var supportedPowerRange: SupportedPowerRange? {
        let uuid = BluetoothUUID(GATTAssignedNumbers.Characteristic.supportedPowerRange)
        let value = services.lazy.flatMap(\.characteristics).first { $0.uuid == uuid }?.value
        return value.flatMap { try? SupportedPowerRange(bytes: $0) }
    }

    /// A profile by kind, with its default name.
    public static func kind(_ kind: Kind) -> PeripheralProfile {
        switch kind {
        case .heartRate: heartRateStrap()
        case .cyclingPower: powerMeter()
        case .footPod: footPod()
        case .smartTrainer: smartTrainer()
        case .treadmill: treadmill()
        case .rower: rower()
        }
    }

    /// A foot pod: RSC Measurement with stride length and total distance at 1 Hz.
    public static func footPod(name: String = "OHK Pod") -> PeripheralProfile {
        typealias C = GATTAssignedNumbers.Characteristic
        let features: RSCFeature = [
            .strideLengthMeasurementSupported, .totalDistanceMeasurementSupported,
            .walkingOrRunningStatusSupported,
        ]
        let rsc = GATTServiceDefinition(
            uuid: BluetoothUUID(GATTAssignedNumbers.Service.runningSpeedAndCadence),
            characteristics: [
                .init(uuid: BluetoothUUID(C.rscMeasurement), properties: .notify),
                .init(uuid: BluetoothUUID(C.rscFeature), properties: .read, value: features.encode()),
            ])
        return PeripheralProfile(
            kind: .footPod, name: name, services: [rsc, battery(), deviceInformation(model: "Simulated foot pod")],
            measurement: BluetoothUUID(C.rscMeasurement), interval: .seconds(1))
    }

    /// A smart trainer: Indoor Bike Data at 2 Hz, a control point that takes target power (ERG), resistance and
    /// simulation parameters, machine status, power range 0–`maximumPower` W (a target above it is refused as an
    /// invalid parameter, as a trainer does).
    public static func smartTrainer(name: String = "OHK Trainer", maximumPower: Int = 2000) -> PeripheralProfile {
        let feature = FitnessMachineFeature(
            machine: [.cadence, .totalDistance, .power],
            targetSetting: [.resistance, .power, .indoorBikeSimulation])
        return fitnessMachine(
            .smartTrainer, name: name, model: "Simulated smart trainer", feature: feature,
            data: GATTAssignedNumbers.Characteristic.indoorBikeData, interval: .milliseconds(500),
            ranges: [
                (
                    GATTAssignedNumbers.Characteristic.supportedPowerRange,
                    SupportedPowerRange(uncheckedMinimum: 0, maximum: maximumPower, increment: 1).encode()
                ),
                (
                    GATTAssignedNumbers.Characteristic.supportedResistanceLevelRange,
                    SupportedResistanceLevelRange(uncheckedMinimum: 0, maximum: 200, increment: 10).encode()
                ),
            ])
    }

    /// A treadmill: Treadmill Data with incline at 1 Hz, speed range 0.5–20 km/h, inclination 0–15 %.
    public static func treadmill(name: String = "OHK Treadmill") -> PeripheralProfile {
        let feature = FitnessMachineFeature(machine: [.totalDistance, .inclination, .elapsedTime], targetSetting: [])
        return fitnessMachine(
            .treadmill, name: name, model: "Simulated treadmill", feature: feature,
            data: GATTAssignedNumbers.Characteristic.treadmillData, interval: .seconds(1),
            ranges: [
                (
                    GATTAssignedNumbers.Characteristic.supportedSpeedRange,
                    SupportedSpeedRange(uncheckedMinimum: 50, maximum: 2000, increment: 10).encode()
                ),
                (
                    GATTAssignedNumbers.Characteristic.supportedInclinationRange,
                    SupportedInclinationRange(uncheckedMinimum: 0, maximum: 150, increment: 5).encode()
                ),
            ])
    }

    /// A rower: Rower Data at 1 Hz.
    public static func rower(name: String = "OHK Rower") -> PeripheralProfile {
        let feature = FitnessMachineFeature(machine: [.totalDistance, .pace, .power], targetSetting: [])
        return fitnessMachine(
            .rower, name: name, model: "Simulated rower", feature: feature,
            data: GATTAssignedNumbers.Characteristic.rowerData, interval: .seconds(1), ranges: [])
    }

    private static func fitnessMachine(
        _ kind: Kind, name: String, model: String, feature: FitnessMachineFeature,
        data: UInt16, interval: Duration, ranges: [(UInt16, [UInt8])]
    ) -> PeripheralProfile {
        typealias C = GATTAssignedNumbers.Characteristic
        var characteristics: [GATTCharacteristicDefinition] = [
            .init(uuid: BluetoothUUID(C.fitnessMachineFeature), properties: .read, value: feature.encode()),
            .init(uuid: BluetoothUUID(data), properties: .notify),
            .init(
                uuid: BluetoothUUID(C.trainingStatus), properties: [.read, .notify],
                value: TrainingStatus(status: 0x0D).encode()),
            .init(uuid: BluetoothUUID(C.fitnessMachineStatus), properties: .notify),
        ]
        characteristics += ranges.map { .init(uuid: BluetoothUUID($0.0), properties: .read, value: $0.1) }
        if !feature.targetSetting.isEmpty {
            characteristics.append(
                .init(uuid: BluetoothUUID(C.fitnessMachineControlPoint), properties: [.write, .indicate]))
        }
        let service = GATTServiceDefinition(
            uuid: BluetoothUUID(GATTAssignedNumbers.Service.fitnessMachine),
            characteristics: characteristics)
        return PeripheralProfile(
            kind: kind, name: name, services: [service, battery(), deviceInformation(model: model)],
            measurement: BluetoothUUID(data), interval: interval)
    }

    /// A chest strap: HR + RR at 1 Hz, chest location, battery, device information.
    public static func heartRateStrap(name: String = "OHK Strap") -> PeripheralProfile {
        typealias C = GATTAssignedNumbers.Characteristic
        let heartRate = GATTServiceDefinition(
            uuid: BluetoothUUID(GATTAssignedNumbers.Service.heartRate),
            characteristics: [
                .init(uuid: BluetoothUUID(C.heartRateMeasurement), properties: .notify),
                .init(
                    uuid: BluetoothUUID(C.bodySensorLocation), properties: .read,
                    value: BodySensorLocation.chest.encode()),
            ])
        return PeripheralProfile(
            kind: .heartRate, name: name,
            services: [heartRate, battery(), deviceInformation(model: "Simulated HR strap")],
            measurement: BluetoothUUID(C.heartRateMeasurement), interval: .seconds(1))
    }

    /// A crank power meter with wheel data: power, crank and wheel revolutions at 4 Hz.
    public static func powerMeter(name: String = "OHK Power") -> PeripheralProfile {
        typealias C = GATTAssignedNumbers.Characteristic
        let features: CyclingPowerFeature = [.wheelRevolutionDataSupported, .crankRevolutionDataSupported]
        let power = GATTServiceDefinition(
            uuid: BluetoothUUID(GATTAssignedNumbers.Service.cyclingPower),
            characteristics: [
                .init(uuid: BluetoothUUID(C.cyclingPowerMeasurement), properties: .notify),
                .init(
                    uuid: BluetoothUUID(C.cyclingPowerFeature), properties: .read,
                    value: features.encode()),
                .init(
                    uuid: BluetoothUUID(C.sensorLocation), properties: .read, value: SensorLocation.leftCrank.encode()),
            ])
        return PeripheralProfile(
            kind: .cyclingPower, name: name,
            services: [power, battery(), deviceInformation(model: "Simulated power meter")],
            measurement: BluetoothUUID(C.cyclingPowerMeasurement), interval: .milliseconds(250))
    }

    /// Everything it serves: Generic Access first (handle 1, as on real devices), then ``services``.
    public var database: [GATTServiceDefinition] {
        [
            GATTServiceDefinition(
                uuid: .genericAccess,
                characteristics: [
                    .init(uuid: .deviceName, properties: .read, value: Array(name.utf8))
                ])
        ] + services
    }

    private static func battery() -> GATTServiceDefinition {
        GATTServiceDefinition(
            uuid: BluetoothUUID(GATTAssignedNumbers.Service.battery),
            characteristics: [
                .init(
                    uuid: BluetoothUUID(GATTAssignedNumbers.Characteristic.batteryLevel), properties: [.read, .notify],
                    value: [87])
            ])
    }

    private static func deviceInformation(model: String) -> GATTServiceDefinition {
        typealias C = GATTAssignedNumbers.Characteristic
        let strings: [(UInt16, String)] = [
            (C.manufacturerNameString, "OpenHealthKit"), (C.modelNumberString, model),
            (C.serialNumberString, "SIM-0001"), (C.firmwareRevisionString, "1.0"),
        ]
        return GATTServiceDefinition(
            uuid: .deviceInformation,
            characteristics: strings.map {
                .init(uuid: BluetoothUUID($0.0), properties: .read, value: Array($0.1.utf8))
            })
    }
}

/// The signal a simulated peripheral notifies, one value per ``PeripheralProfile/interval``.
public enum PeripheralSignal: Sendable {
    case heartRate(HeartRateSignal)
    case cyclingPower(CyclingPowerSignal)
    case footPod(FootPodSignal)
    case smartTrainer(SmartTrainerSignal)
    case treadmill(TreadmillSignal)
    case rower(RowerSignal)

    public init(for profile: PeripheralProfile) {
        let seconds =
            Double(profile.interval.components.seconds) + Double(profile.interval.components.attoseconds) / 1e18
        switch profile.kind {
        case .heartRate: self = .heartRate(HeartRateSignal(interval: seconds))
        case .cyclingPower: self = .cyclingPower(CyclingPowerSignal(interval: seconds))
        case .footPod: self = .footPod(FootPodSignal(interval: seconds))
        case .smartTrainer:
            var signal = SmartTrainerSignal(interval: seconds)
            if let range = profile.supportedPowerRange { signal.powerRange = range.minimum ... range.maximum }
            self = .smartTrainer(signal)
        case .treadmill: self = .treadmill(TreadmillSignal(interval: seconds))
        case .rower: self = .rower(RowerSignal(interval: seconds))
        }
    }

    /// The next measurement's bytes.
    public mutating func next() -> [UInt8] {
        switch self {
        case .heartRate(var signal):
            defer { self = .heartRate(signal) }
            return signal.next().encode()
        case .cyclingPower(var signal):
            defer { self = .cyclingPower(signal) }
            return signal.next().encode()
        case .footPod(var signal):
            defer { self = .footPod(signal) }
            return signal.next().encode()
        case .smartTrainer(var signal):
            defer { self = .smartTrainer(signal) }
            return signal.next().encode()
        case .treadmill(var signal):
            defer { self = .treadmill(signal) }
            return signal.next().encode()
        case .rower(var signal):
            defer { self = .rower(signal) }
            return signal.next().encode()
        }
    }

    /// Carries out a control point request, as a trainer does (``SmartTrainerSignal/control(_:)``); returns its result
    /// code. Only a smart trainer takes requests.
    public mutating func control(_ request: FitnessMachineControlPoint.Request) -> FitnessMachineControlPoint.ResultCode
    {
        guard case .smartTrainer(var signal) = self else { return .opCodeNotSupported }
        defer { self = .smartTrainer(signal) }
        return signal.control(request)
    }
}
