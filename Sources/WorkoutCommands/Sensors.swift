import ArgumentParser
import BlueZDBus
import BlueZTransport
import FitnessSensors
import Foundation
import OpenHealthKit

extension Workout {
    struct Pair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pair a sensor with the store, so live workouts read from it.",
            discussion: """
                ADDRESS is AA:BB:CC:DD:EE:FF (add /random for a random address, as `workout scan` shows) \
                or unix:PATH for a simulated peripheral. The sensor is contacted once to learn what it \
                measures; --no-probe pairs it without contact. Where bluetoothd runs, the sensor is marked \
                trusted, and bonded through workout's own agent when it protects its measurements (no \
                dialog, also on a headless Pi). --again first forgets what bluetoothd kept of the sensor (a \
                stale bond: the sensor was reset, or bonded with another device since).

                Example:
                  workout pair C7:3A:10:5E:22:F1/random --name "Chest strap"
                """
        )

        @OptionGroup var options: StoreOptions
        @Argument(help: ArgumentHelp("The sensor's address.", valueName: "ADDRESS")) var address: String
        @Option(help: ArgumentHelp("A name for the sensor.", valueName: "N")) var name: String?
        @Flag(help: "Pair without connecting (capabilities: everything a strap or power meter can measure).")
        var noProbe = false
        @Option(help: ArgumentHelp("Connection timeout in seconds.", valueName: "S")) var timeout: Double = 10
        @Flag(
            help:
                "Forget bluetoothd's bond with the sensor first (it was reset, or bonded with another device since) and pair afresh."
        )
        var again = false
        @Option(
            help: ArgumentHelp(
                "The adapter to connect through (default: $OPENHEALTHKIT_ADAPTER, else the first one up).",
                valueName: "hciN"))
        var adapter: String?

        func validate() throws {
            if again, noProbe {
                throw ValidationError("--again pairs afresh, which needs the sensor: not with --no-probe.")
            }
        }

        func run() async throws {
            try await reportingErrors {
                var parsed = try SensorAddress(parsing: address)
                var capabilities = SensorCapabilities.heartRateStrap.union(.powerMeter)
                var sensorName = name ?? parsed.description
                if !noProbe {
                    let probe: SensorProbe
                    let limit = Duration.milliseconds(Int64(timeout * 1000))
                    if case .bluetooth(let device) = parsed, try await BluetoothBackend.current().kind == .dbus {
                        // Through bluetoothd: bonded through this program's agent (no dialog) and trusted.
                        let pairing = DBusPairing(
                            client: BlueZClient(connection: try SystemBus.shared()), adapter: adapter, timeout: limit)
                        if again {
                            let forgotten = try await pairing.forget(device) > 0
                            print("bluetoothd: \(forgotten ? "forgot its bond with" : "kept nothing of") \(parsed).")
                        }
                        let outcome = try await pairing.pair(device)
                        parsed = .bluetooth(outcome.address)
                        if name == nil { sensorName = parsed.description }
                        print("bluetoothd: \(outcome.bonding)\(outcome.trusted ? ", trusted" : "").")
                        if outcome.deviceInformationHidden { print(DBusPairing.Outcome.hiddenDeviceInformation) }
                        probe = outcome.probe
                    } else {
                        if again, case .bluetooth = parsed {
                            print("Without bluetoothd there is no bond kept to forget; pairing afresh.")
                        }
                        probe = try await SensorProbe.probe(parsed, adapter: adapter, timeout: limit)
                    }
                    guard !probe.capabilities.subtracting(.battery).isEmpty else {
                        throw CommandFailure(
                            "\(parsed) offers no \(FitnessProfiles.measuringNames) service, so it cannot be paired as a fitness sensor."
                        )
                    }
                    capabilities = probe.capabilities
                    // The name a phone would show (Generic Access's Device Name), else the maker and model.
                    if name == nil, let deviceName = probe.deviceName {
                        sensorName = deviceName
                    } else if name == nil, let model = probe.deviceInformation.modelNumber {
                        sensorName = [probe.deviceInformation.manufacturerName, model].compactMap { $0 }.joined(
                            separator: " ")
                    }
                }
                let store = try await options.open()
                try await store.pairSensor(
                    PairedSensor(identifier: parsed.identifier, name: sensorName, capabilities: capabilities))
                print("Paired \(sensorName) (\(parsed.identifier)): \(describe(capabilities)).")
            }
        }
    }

    struct Sensors: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the paired sensors; with --scan, also the ones nearby.",
            discussion: "Example:\n  workout sensors --scan --timeout 5"
        )

        @OptionGroup var options: StoreOptions
        @Flag(help: "Also scan for nearby Bluetooth LE sensors (without bluetoothd: as root or with CAP_NET_ADMIN).")
        var scan = false
        @Option(help: ArgumentHelp("How long to scan, in seconds.", valueName: "S")) var timeout: Double = 10

        func run() async throws {
            try await reportingErrors {
                let store = try await options.open()
                let paired = try await store.pairedSensors()
                if paired.isEmpty {
                    print("No paired sensors. Pair one with `workout pair ADDRESS`.")
                } else {
                    // Columns as wide as their longest entry, two spaces apart; what a sensor measures is folded
                    // under its column to keep rows in 80 columns, when the column leaves room for it.
                    let identifierWidth = max("Identifier".count, paired.map(\.identifier.count).max() ?? 0) + 2
                    let nameWidth = max("Name".count, paired.map(\.name.count).max() ?? 0) + 2
                    let column = identifierWidth + nameWidth
                    print(pad("Identifier", identifierWidth) + pad("Name", nameWidth) + "Measures")
                    for sensor in paired {
                        let measures = folded(describe(sensor.capabilities), width: 80 - column)
                        print(pad(sensor.identifier, identifierWidth) + pad(sensor.name, nameWidth) + measures[0])
                        for more in measures.dropFirst() { print(String(repeating: " ", count: column) + more) }
                    }
                }
                if scan {
                    print("\nNearby:")
                    let nearby = try await scanNearby(seconds: timeout)
                    printDevices(nearby.devices, everyAdapter: nearby.everyAdapter)
                }
            }
        }
    }
}

/// A list ("heart rate, RR intervals, battery") in lines of at most `width`, broken after its commas; whole when
/// the width leaves too little room to be worth folding into.
func folded(_ list: String, width: Int) -> [String] {
    guard width >= 24, list.count > width else { return [list] }
    var lines: [String] = []
    var line = ""
    for item in list.components(separatedBy: ", ") {
        let next = line.isEmpty ? item : line + ", " + item
        if next.count + 1 > width, !line.isEmpty {
            lines.append(line + ",")
            line = item
        } else {
            line = next
        }
    }
    return lines + [line]
}

/// "heart rate, RR intervals, battery"
func describe(_ capabilities: SensorCapabilities) -> String {
    let names: [(SensorCapabilities, String)] = [
        (.heartRate, "heart rate"), (.rrIntervals, "RR intervals"), (.power, "power"), (.cadence, "cadence"),
        (.speed, "speed"), (.distance, "distance"), (.energy, "energy"), (.battery, "battery"),
    ]
    let present = names.filter { capabilities.contains($0.0) }.map(\.1)
    return present.isEmpty ? "nothing known" : present.joined(separator: ", ")
}
