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

    /// A profile by kind, with its default name.
    public static func kind(_ kind: Kind) -> PeripheralProfile {
        switch kind {
        case .heartRate: heartRateStrap()
        case .cyclingPower: powerMeter()
        }
    }

    /// A chest strap: HR + RR at 1 Hz, chest location, battery, device information.
    public static func heartRateStrap(name: String = "OHK Strap") -> PeripheralProfile {
        typealias C = GATTAssignedNumbers.Characteristic
        let heartRate = GATTServiceDefinition(uuid: BluetoothUUID(GATTAssignedNumbers.Service.heartRate), characteristics: [
            .init(uuid: BluetoothUUID(C.heartRateMeasurement), properties: .notify),
            .init(uuid: BluetoothUUID(C.bodySensorLocation), properties: .read, value: BodySensorLocation.chest.encode()),
        ])
        return PeripheralProfile(kind: .heartRate, name: name,
                                 services: [heartRate, battery(), deviceInformation(model: "Simulated HR strap")],
                                 measurement: BluetoothUUID(C.heartRateMeasurement), interval: .seconds(1))
    }

    /// A crank power meter with wheel data: power, crank and wheel revolutions at 4 Hz.
    public static func powerMeter(name: String = "OHK Power") -> PeripheralProfile {
        typealias C = GATTAssignedNumbers.Characteristic
        let features: CyclingPowerFeature = [.wheelRevolutionDataSupported, .crankRevolutionDataSupported]
        let power = GATTServiceDefinition(uuid: BluetoothUUID(GATTAssignedNumbers.Service.cyclingPower), characteristics: [
            .init(uuid: BluetoothUUID(C.cyclingPowerMeasurement), properties: .notify),
            .init(uuid: BluetoothUUID(C.cyclingPowerFeature), properties: .read,
                  value: features.encode()),
            .init(uuid: BluetoothUUID(C.sensorLocation), properties: .read, value: SensorLocation.leftCrank.encode()),
        ])
        return PeripheralProfile(kind: .cyclingPower, name: name,
                                 services: [power, battery(), deviceInformation(model: "Simulated power meter")],
                                 measurement: BluetoothUUID(C.cyclingPowerMeasurement), interval: .milliseconds(250))
    }

    /// Everything it serves: Generic Access first (handle 1, as on real devices), then ``services``.
    public var database: [GATTServiceDefinition] {
        [GATTServiceDefinition(uuid: .genericAccess, characteristics: [
            .init(uuid: .deviceName, properties: .read, value: Array(name.utf8)),
        ])] + services
    }

    private static func battery() -> GATTServiceDefinition {
        GATTServiceDefinition(uuid: BluetoothUUID(GATTAssignedNumbers.Service.battery), characteristics: [
            .init(uuid: BluetoothUUID(GATTAssignedNumbers.Characteristic.batteryLevel), properties: [.read, .notify], value: [87]),
        ])
    }

    private static func deviceInformation(model: String) -> GATTServiceDefinition {
        typealias C = GATTAssignedNumbers.Characteristic
        let strings: [(UInt16, String)] = [
            (C.manufacturerNameString, "OpenHealthKit"), (C.modelNumberString, model),
            (C.serialNumberString, "SIM-0001"), (C.firmwareRevisionString, "1.0"),
        ]
        return GATTServiceDefinition(uuid: .deviceInformation, characteristics: strings.map {
            .init(uuid: BluetoothUUID($0.0), properties: .read, value: Array($0.1.utf8))
        })
    }
}

/// The signal a simulated peripheral notifies, one value per ``PeripheralProfile/interval``.
public enum PeripheralSignal: Sendable {
    case heartRate(HeartRateSignal)
    case cyclingPower(CyclingPowerSignal)

    public init(for profile: PeripheralProfile) {
        let seconds = Double(profile.interval.components.seconds) + Double(profile.interval.components.attoseconds) / 1e18
        switch profile.kind {
        case .heartRate: self = .heartRate(HeartRateSignal(interval: seconds))
        case .cyclingPower: self = .cyclingPower(CyclingPowerSignal(interval: seconds))
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
        }
    }
}
