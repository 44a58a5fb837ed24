import Foundation
import Glibc
import Testing

let umockdevRun = "/usr/bin/umockdev-run"

let kernelLacksBluetooth: Bool = {
    let fd = socket(AF_BLUETOOTH, Int32(SOCK_SEQPACKET.rawValue), 0)
    if fd >= 0 { close(fd); return false }
    return errno == EAFNOSUPPORT
}()

/// `workout adapters` under `umockdev-run` (udev and sysfs faked through LD_PRELOAD, with a fake `hci0` on btusb
/// and a UART `hci1`), and `workout scan` on a kernel without Bluetooth.
@Suite(.timeLimit(.minutes(1))) struct BluetoothCommandTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("BlueZTransportTests/Fixtures/hci0.umockdev").path

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

    @Test(.enabled(if: kernelLacksBluetooth, "this kernel has Bluetooth"))
    func scanIsOneSentenceAndNonZeroExit() throws {
        let result = try Tool.run(["scan", "--timeout", "1"])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr == """
            workout: This kernel has no Bluetooth support (opening the Bluetooth adapter failed: Address family not supported by protocol); \
            load it with `sudo modprobe bluetooth` or use a kernel built with CONFIG_BT.

            """)
    }
}
