import BlueZTransport
import BluetoothLE
import Testing

@testable import WorkoutCommands

/// A scan that heard nothing on a machine with several adapters names them and how to scan with another, unless an
/// adapter was chosen (by `--adapter` or `$OPENHEALTHKIT_ADAPTER`) or there is only one.
@Suite struct ScanAdapterNoteTests {
    @Test func severalAdaptersAndNoneNamed() {
        #expect(
            otherAdaptersNote(named: nil, adapters: ["hci0", "hci1"], environment: [:])
                == "This machine has 2 adapters (hci0, hci1) and the scan used one; scan with another with --adapter hci1."
        )
    }

    @Test func oneAdapterOrOneChosenSaysNothingMore() {
        #expect(otherAdaptersNote(named: nil, adapters: ["hci0"], environment: [:]) == nil)
        #expect(otherAdaptersNote(named: "hci1", adapters: ["hci0", "hci1"], environment: [:]) == nil)
        #expect(
            otherAdaptersNote(named: nil, adapters: ["hci0", "hci1"], environment: ["OPENHEALTHKIT_ADAPTER": "hci0"])
                == nil)
        #expect(otherAdaptersNote(named: nil, adapters: nil, environment: [:]) == nil)
    }
}

/// What `workout scan` lists: fitness sensors (by the services or the appearance they advertise), other devices
/// counted, every device with --all.
@Suite struct ScanListTests {
    static let heard = [
        DiscoveredDevice(
            address: BluetoothAddress("00:22:D0:90:4C:14")!, name: "Polar H7", rssi: -71,
            services: [BluetoothUUID(0x180D)]),
        DiscoveredDevice(
            address: BluetoothAddress("D1:22:33:44:55:66", type: .random)!, name: "KICKR", rssi: -50,
            services: [BluetoothUUID(0x1826), BluetoothUUID(0x1818)]),
        DiscoveredDevice(
            address: BluetoothAddress("C1:22:33:44:55:77", type: .random)!, name: "Stryd", rssi: -64,
            services: [BluetoothUUID(0x1814)]),
        DiscoveredDevice(address: BluetoothAddress("10:20:30:40:50:60")!, name: "Loud", rssi: -40),
    ]

    @Test func sensorsAreListedAndTheRestCounted() {
        var results = ScanResults()
        for device in Self.heard { results.add(device) }
        let lines = scanLines(results.devices, all: false) { "another adapter" }
        #expect(lines.count == 5, "\(lines)")
        #expect(lines[1].hasPrefix("Polar H7") && lines[1].contains("heart rate"))
        #expect(
            lines[2].hasPrefix("KICKR") && lines[2].contains("fitness machine") && lines[2].hasSuffix("0x1826,0x1818"))
        #expect(lines[3].hasPrefix("Stryd") && lines[3].contains("foot pod"))
        #expect(lines[4] == "1 other Bluetooth LE device heard; --all lists them.")
        let every = scanLines(results.devices, all: true) { nil }
        #expect(every.count == 5 && every[4].hasPrefix("Loud"), "\(every)")
    }

    @Test func noSensorHeardSaysWhatWasAndWhatToDo() {
        let lines = scanLines([Self.heard[3]], all: false) { "This machine has 2 adapters" }
        #expect(
            lines == [
                "No fitness sensor heard (1 other Bluetooth LE device heard; --all lists them); wake the sensor (wet a strap's contacts, spin the cranks) and scan again.",
                "This machine has 2 adapters",
            ])
        #expect(
            scanLines([], all: true) { nil }
                == [
                    "No Bluetooth LE device heard; wake the sensor (wet a strap's contacts, spin the cranks) and scan again."
                ])
    }
}

extension ScanListTests {
    /// After a scan of several adapters, a column says which heard each device, the strongest signal's first.
    @Test func severalAdaptersSayWhichHeardWhat() {
        let strap = Self.heard[0]
        let merged = ScanResults.merging([
            ("hci0", [DiscoveredDevice(address: strap.address, name: "Polar H7", rssi: -80, services: strap.services)]),
            ("hci1", [strap, Self.heard[1]]),
        ])
        #expect(merged.map(\.adapters) == [["hci1", "hci0"], ["hci1"]])
        #expect(merged.first?.rssi == -71)
        let lines = scanLines(merged, all: false) { nil }
        #expect(lines[0].contains("Heard by"), "\(lines)")
        #expect(lines[1].contains("hci1,hci0"), "\(lines)")
    }
}
