@testable import BlueZTransport
import Foundation
import Testing

let umockdevRun = "/usr/bin/umockdev-run"

/// udev enumeration of a fake `hci0` (a USB dongle on btusb, with a live link `hci0:64` that is not an
/// adapter) and a UART `hci1`, under `umockdev-run`, which fakes sysfs and udev through LD_PRELOAD. The
/// `workout` tool is the helper process, so the test goes through the same code a user does.
@Suite(.timeLimit(.minutes(1))) struct AdapterTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/hci0.umockdev").path

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: umockdevRun), "umockdev is not installed (scripts/install-dependencies.sh)"))
    func enumeratesFakeAdaptersUnderUmockdev() throws {
        let result = try Tool.run(["-d", Self.fixture, "--", Tool.url.path, "adapters"], executable: URL(fileURLWithPath: umockdevRun))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            Adapter   Address            Driver
            hci0      00:1A:7D:DA:71:13  btusb
            hci1      C0:FF:EE:00:00:01  -

            """)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: umockdevRun), "umockdev is not installed (scripts/install-dependencies.sh)"))
    func noAdapterIsOneSentence() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID()).umockdev")
        try Data("P: /devices/platform/serial8250/tty/ttyS0\nE: SUBSYSTEM=tty\n".utf8).write(to: empty)
        defer { try? FileManager.default.removeItem(at: empty) }
        let result = try Tool.run(["-d", empty.path, "--", Tool.url.path, "adapters"], executable: URL(fileURLWithPath: umockdevRun))
        #expect(result.status == 1)
        #expect(result.stderr == "workout: No Bluetooth adapter is present; plug one in or unblock it with `rfkill unblock bluetooth`.\n")
    }

    @Test func udevEventsAreAdaptersOnly() {
        let adapter = BluetoothAdapter(name: "hci0", sysPath: "/sys/devices/x/bluetooth/hci0")
        #expect(AdapterEvent.from(action: "add", sysname: "hci0", devtype: "host") { adapter } == .added(adapter))
        #expect(AdapterEvent.from(action: "remove", sysname: "hci0", devtype: "host") { nil } == .removed(name: "hci0"))
        #expect(AdapterEvent.from(action: "add", sysname: "hci0:64", devtype: "link") { adapter } == nil)
        #expect(AdapterEvent.from(action: "change", sysname: "hci0", devtype: "host") { adapter } == nil)
        #expect(AdapterEvent.from(action: "add", sysname: "hci1", devtype: nil) { adapter } == .added(adapter))
        #expect(AdapterEvent.from(action: "add", sysname: "hci1:12", devtype: nil) { adapter } == nil)
    }
}
