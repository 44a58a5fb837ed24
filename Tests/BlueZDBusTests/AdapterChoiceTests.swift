import BlueZTransport
import Foundation
import TestSupport
import Testing

@testable import BlueZDBus

/// Which adapter bluetoothd's path records with, against the fake bluetoothd: one that cannot take the central role
/// (its `Roles`) is never chosen, and one that rfkill blocks (`PowerState` `off-blocked`) is named as blocked, not as
/// merely off (the review's D8 and W7).
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct AdapterChoiceTests {
    /// Sets adapter properties through python-dbusmock's own interface: `AddProperties` for ones the bluez5 template
    /// does not have (`Roles`, `PowerState`), `UpdateProperties` for ones it has (`Powered`).
    static func update(
        _ fake: FakeBlueZ, _ adapter: String, _ properties: [(String, DBusValue)], adding: Bool = true
    ) async throws {
        try await fake.fake(
            adding ? "AddProperties" : "UpdateProperties",
            [
                .string("org.bluez.Adapter1"),
                .array(
                    elementSignature: "{sv}", properties.map { .dictionaryEntry(.string($0.0), .variant($0.1)) }),
            ], path: "/org/bluez/\(adapter)", interface: "org.freedesktop.DBus.Mock")
    }

    @Test func anAdapterThatCannotBeCentralIsSkippedAndABlockedOneIsNamed() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        for name in ["hci0", "hci1", "hci2"] { try await fake.addAdapter(name) }
        // hci0 can only be a peripheral; hci1 both; hci2 says nothing of its roles (an older bluetoothd).
        try await Self.update(fake, "hci0", [("Roles", .strings(["peripheral"]))])
        try await Self.update(fake, "hci1", [("Roles", .strings(["central", "peripheral", "central-peripheral"]))])
        var objects = try await fake.client.managedObjects()
        #expect(try fake.client.adapter(named: nil, in: objects) == "/org/bluez/hci1")
        // A scan listens with the adapters that could connect to what they hear.
        #expect(fake.client.poweredAdapters(in: objects) == ["hci1", "hci2"])
        #expect(try fake.client.adapter(named: "hci2", in: objects) == "/org/bluez/hci2")
        #expect(throws: BlueZError.self) { try fake.client.adapter(named: "hci0", in: objects) }
        do {
            _ = try fake.client.adapter(named: "hci0", in: objects)
        } catch {
            #expect(
                error.message
                    == "hci0 cannot connect to sensors: bluetoothd says it cannot take the central role (its Roles); use another adapter with --adapter."
            )
        }

        // hci1 blocked by rfkill, hci2 powered off: the first that can be central is named, as blocked.
        try await Self.update(fake, "hci1", [("Powered", .boolean(false))], adding: false)
        try await Self.update(fake, "hci1", [("PowerState", .string("off-blocked"))])
        try await Self.update(fake, "hci2", [("Powered", .boolean(false))], adding: false)
        try await Self.update(fake, "hci2", [("PowerState", .string("off"))])
        objects = try await fake.client.managedObjects()
        for (name, sentence) in [
            (
                nil,
                "hci1 is blocked by rfkill (airplane mode, or a wireless switch): run `rfkill unblock bluetooth`, or turn the switch on."
            ),
            (
                "hci2",
                "hci2 is powered off: run `bluetoothctl power on` (with `bluetoothctl select` for another adapter)."
            ),
        ] as [(String?, String)] {
            do {
                let chosen = try fake.client.adapter(named: name, in: objects)
                Issue.record("\(chosen) was chosen")
            } catch {
                #expect(error.message == sentence)
            }
        }
    }
}
