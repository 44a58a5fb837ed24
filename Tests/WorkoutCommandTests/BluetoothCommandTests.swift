import Foundation
import Glibc
import Testing

let umockdevRun = "/usr/bin/umockdev-run"

let kernelLacksBluetooth: Bool = {
    let fd = socket(AF_BLUETOOTH, Int32(SOCK_SEQPACKET.rawValue), 0)
    if fd >= 0 {
        close(fd)
        return false
    }
    return errno == EAFNOSUPPORT
}()

/// `workout adapters` under `umockdev-run` (udev and sysfs faked through LD_PRELOAD, with a fake `hci0` on btusb
/// and a UART `hci1`), and `workout scan` and `workout doctor` on a kernel without Bluetooth.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct BluetoothCommandTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("BlueZTransportTests/Fixtures/hci0.umockdev").path

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: umockdevRun),
            "umockdev is not installed (scripts/install-dependencies.sh)"))
    func enumeratesFakeAdaptersUnderUmockdev() throws {
        let result = try Tool.run(
            ["-d", Self.fixture, "--", Tool.url.path, "adapters"], executable: URL(fileURLWithPath: umockdevRun))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                Adapter   Address            Driver
                hci0      00:1A:7D:DA:71:13  btusb
                hci1      C0:FF:EE:00:00:01  -

                """)
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: umockdevRun),
            "umockdev is not installed (scripts/install-dependencies.sh)"))
    func noAdapterIsOneSentence() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID()).umockdev")
        try Data("P: /devices/platform/serial8250/tty/ttyS0\nE: SUBSYSTEM=tty\n".utf8).write(to: empty)
        defer { try? FileManager.default.removeItem(at: empty) }
        let result = try Tool.run(
            ["-d", empty.path, "--", Tool.url.path, "adapters"], executable: URL(fileURLWithPath: umockdevRun))
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "workout: No Bluetooth adapter is present; plug one in or unblock it with `rfkill unblock bluetooth`.\n"
        )
    }

    @Test(.enabled(if: kernelLacksBluetooth, "this kernel has Bluetooth"))
    func scanIsOneSentenceAndNonZeroExit() throws {
        let result = try Tool.run(["scan", "--timeout", "1"])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(
            result.stderr == """
                workout: This kernel has no Bluetooth support (opening the Bluetooth adapter failed: Address family not supported by protocol); \
                load it with `sudo modprobe bluetooth` or use a kernel built with CONFIG_BT.

                """)
    }

    @Test func aBluetoothPathOtherThanDBusOrRawIsOneSentence() throws {
        let result = try Tool.run(["scan", "--timeout", "1"], environment: ["OPENHEALTHKIT_BLUETOOTH": "bogus"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "workout: OPENHEALTHKIT_BLUETOOTH must be 'dbus' or 'raw', not 'bogus'; unset it to choose by whether bluetoothd runs.\n"
        )
    }

    @Test func theDBusPathWithoutASystemBusIsOneSentence() throws {
        let result = try Tool.run(
            ["scan", "--timeout", "1"],
            environment: [
                "OPENHEALTHKIT_BLUETOOTH": "dbus",
                "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/system_bus_socket",
            ])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "workout: bluetoothd cannot be reached: The system bus could not be reached: No such file or directory.\n"
        )
    }

    /// The real binary on this kernel: the first line names the missing kernel support with its
    /// fix, and the exit is 1 because recording cannot work; --json says the same.
    @Test(.enabled(if: kernelLacksBluetooth, "this kernel has Bluetooth"))
    func doctorSaysTheKernelLacksBluetoothAndExitsOne() throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString).sqlite")
            .path
        let result = try Tool.run(["doctor", "--store", store])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.first
                == "✘ Kernel Bluetooth support: AF_BLUETOOTH sockets cannot be opened (Address family not supported by protocol); fix: sudo modprobe bluetooth (or use a kernel built with CONFIG_BT)"
        )
        #expect(lines.contains("✔ The store is writable: \(store)"))
        #expect(lines.last == "Recording cannot work until the ✘ lines that block it are fixed.")
        #expect(!FileManager.default.fileExists(atPath: store), "doctor creates no store")
        let json = try Tool.run(["doctor", "--json", "--store", store])
        #expect(json.status == 1)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["canRecord"] as? Bool == false)
        #expect((object?["checks"] as? [[String: Any]])?.first?["id"] as? String == "kernel")
    }
}
