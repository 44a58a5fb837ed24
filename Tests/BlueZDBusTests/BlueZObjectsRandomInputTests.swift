import Foundation
import TestSupport
import Testing

@testable import BlueZDBus

/// What bluetoothd sends is untrusted: random trees of D-Bus values, of every type and nesting, given to everything
/// that takes bluetoothd's message bodies apart (the object tree's load and its three signals, the device watch,
/// the views of devices and characteristics). Nothing may trap; a body of the wrong shape is one
/// ``BlueZReplyError`` and leaves the tree as it was. The fuzzers' rule (`Fuzz/`), in a test: this target links
/// sd-bus, which the libFuzzer builds do not.
@Suite struct BlueZObjectsRandomInputTests {
    /// A random value, at most `depth` containers deep, often of the shapes bluetoothd uses so that the checks past
    /// the first one are reached.
    static func value(_ random: inout SeededGenerator, depth: Int = 4) -> DBusValue {
        let strings = [
            "org.bluez.Device1", "org.bluez.GattCharacteristic1", "Connected", "ServicesResolved", "Value",
            "Address", "UUID", "Flags", "/org/bluez/hci0", "/org/bluez/hci0/dev_C7_3A_10_5E_22_F1", "",
            "C7:3A:10:5E:22:F1", "notify", "0000180d-0000-1000-8000-00805f9b34fb", "zz:zz",
        ]
        let leaf = Int.random(in: 0 ..< (depth > 0 ? 16 : 10), using: &random)
        switch leaf {
        case 0: return .byte(UInt8.random(in: 0 ... 255, using: &random))
        case 1: return .boolean(Bool.random(using: &random))
        case 2: return .int16(Int16.random(in: .min ... .max, using: &random))
        case 3: return .uint32(UInt32.random(in: 0 ... .max, using: &random))
        case 4: return .uint64(UInt64.random(in: 0 ... .max, using: &random))
        case 5: return .double(Double.random(in: -1e9 ... 1e9, using: &random))
        case 6: return .string(strings.randomElement(using: &random)!)
        case 7: return .objectPath(strings.randomElement(using: &random)!)
        case 8:
            return .bytes(
                (0 ..< Int.random(in: 0 ... 8, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
            )
        case 9: return .signature("a{sv}")
        case 10, 11:
            let count = Int.random(in: 0 ... 3, using: &random)
            return .array(
                elementSignature: "{sv}",
                (0 ..< count).map { _ in .dictionaryEntry(value(&random, depth: 0), value(&random, depth: depth - 1)) })
        case 12: return .variant(value(&random, depth: depth - 1))
        case 13: return .structure((0 ..< 2).map { _ in value(&random, depth: depth - 1) })
        case 14: return .array(elementSignature: "s", (0 ..< 2).map { _ in value(&random, depth: 0) })
        default: return .dictionaryEntry(value(&random, depth: depth - 1), value(&random, depth: depth - 1))
        }
    }

    static func body(_ random: inout SeededGenerator) -> [DBusValue] {
        (0 ..< Int.random(in: 0 ... 3, using: &random)).map { _ in value(&random) }
    }

    @Test func randomBodiesNeverTrapAndAWrongShapeLeavesTheTreeAsItWas() throws {
        var random = SeededGenerator(seed: 0x5EED_DB05)
        var objects = BlueZObjects()
        let watch = DeviceWatch(address: 0xC73A_105E_22F1)
        var cached = BlueZObjects()
        watch.follow("/org/bluez/hci0/dev_C7_3A_10_5E_22_F1", in: BlueZObjects())
        var rejected = 0
        for _ in 0 ..< 20_000 {
            let body = Self.body(&random)
            let before = objects
            do {
                switch Int.random(in: 0 ..< 4, using: &random) {
                case 0: try objects.load(managedObjects: body)
                case 1: try objects.interfacesAdded(body)
                case 2: try objects.interfacesRemoved(body)
                default: try objects.propertiesChanged(at: "/org/bluez/hci0/dev_C7_3A_10_5E_22_F1", body)
                }
            } catch {
                rejected += 1
                #expect(objects == before)
            }
            for device in objects.devices() {
                _ = (device.address, device.name, device.rssi, device.services, device.appearance, device.discovered)
                _ = objects.characteristics(of: device.path)
            }
            _ = objects.adapters
            let member = ["InterfacesAdded", "InterfacesRemoved", "PropertiesChanged", "Disconnected"]
                .randomElement(using: &random)!
            let interface =
                member == "Disconnected"
                ? BlueZ.device : member == "PropertiesChanged" ? BlueZ.properties : BlueZ.objectManager
            // The process's cache reads the same bodies and hands what they mean to the watch of the device.
            let signal = BusConnection.Signal(
                sender: ":1.1", path: "/org/bluez/hci0/dev_C7_3A_10_5E_22_F1", interface: interface, member: member,
                body: body)
            if let (event, address) = BlueZObjectCache.event(of: signal, applyingTo: &cached),
                watch.concerns(event, address: address)
            {
                watch.receive(event)
            }
        }
        // The generator reaches both outcomes: bodies taken and bodies refused.
        #expect(rejected > 1_000 && rejected < 20_000)
    }
}
