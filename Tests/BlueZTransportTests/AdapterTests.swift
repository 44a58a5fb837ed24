@testable import BlueZTransport
import Foundation
import Testing


/// udev enumeration of a fake `hci0` (a USB dongle on btusb, with a live link `hci0:64` that is not an
/// adapter) and a UART `hci1`, under `umockdev-run`, which fakes sysfs and udev through LD_PRELOAD. The
/// `workout` tool is the helper process, so the test goes through the same code a user does.
@Suite(.timeLimit(.minutes(1))) struct AdapterTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/hci0.umockdev").path

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
