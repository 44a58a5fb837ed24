import BlueZTransport
import BluetoothLE
import FitnessSensors
import Testing

@Suite struct PeripheralFaultsTests {
    @Test func windowsParseAsAtColonSeconds() {
        #expect(PeripheralFaults.Window(parsing: "12:3.5") == PeripheralFaults.Window(at: 12, seconds: 3.5))
        for bad in ["12", "12:", ":3", "a:b", "-1:3", "5:0", "1:2:3"] {
            #expect(PeripheralFaults.Window(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func faultsChangeTheBytesAsTheyClaim() {
        var faults = PeripheralFaults()
        faults.dropouts = [.init(at: 5, seconds: 2)]
        faults.noContact = [.init(at: 10, seconds: 1)]
        faults.malformedEvery = 3
        #expect(
            !faults.isDroppedOut(at: 4.9) && faults.isDroppedOut(at: 5) && faults.isDroppedOut(at: 6.9)
                && !faults.isDroppedOut(at: 7))
        // Flags 0x06: contact supported (bit 2) and detected (bit 1); 0x50 = 80 bpm (Bluetooth HRS 1.0 §3.1.1.1).
        let measurement: [UInt8] = [0x06, 0x50]
        #expect(faults.apply(to: measurement, heartRate: true, number: 1, at: 0) == measurement)
        #expect(faults.apply(to: measurement, heartRate: true, number: 2, at: 10.5) == [0x04, 0x50])
        #expect(
            faults.apply(to: measurement, heartRate: true, number: 3, at: 0) == [0x06], "every third cut to one byte")
        #expect(
            faults.apply(to: measurement, heartRate: false, number: 2, at: 10.5) == measurement,
            "power meters have no contact")
    }

    @Test func batteryLevelIsTheProfilesBatteryValue() {
        var faults = PeripheralFaults()
        faults.batteryPercent = 42
        let profile = faults.applied(to: .heartRateStrap())
        let battery = BluetoothUUID(GATTAssignedNumbers.Characteristic.batteryLevel)
        let values = profile.services.flatMap(\.characteristics).filter { $0.uuid == battery }.map(\.value)
        #expect(values == [[42]])
    }
}
