import ArgumentParser
import BlueZDBus
import BlueZTransport
import Foundation
import OpenHealthKit

extension Workout {
    struct Doctor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Check whether this machine can record from a Bluetooth LE sensor, and say how to fix what cannot.",
            discussion: """
                One line per check, ✔ or ✘, with the exact fix: the kernel's Bluetooth \
                support; which path reaches Bluetooth (bluetoothd's D-Bus API where it runs, \
                raw sockets without it; OPENHEALTHKIT_BLUETOOTH=dbus|raw forces one); each adapter (up, LE enabled, not blocked by rfkill, and through bluetoothd able to take the central role); whether \
                this binary may scan without bluetoothd (CAP_NET_ADMIN); bluetoothd, and \
                whether it holds a paired sensor's connection; the [LE] connection \
                parameters of /etc/bluetooth/main.conf that keep straps connected; the store.

                Exits 0 when recording can work, 1 otherwise (a missing scan permission \
                or connection parameter alone does not stop recording).

                Examples:
                  workout doctor
                  workout doctor --json
                """
        )

        @OptionGroup var options: StoreOptions
        @Flag(help: "Print the checks as one JSON object.") var json = false
        @Option(help: ArgumentHelp("bluetoothd's configuration file.", valueName: "PATH"))
        var bluetoothConfiguration = "/etc/bluetooth/main.conf"

        func run() async throws {
            let path = options.store ?? HKHealthStore.defaultStorePath
            var paired: [String] = []
            if FileManager.default.fileExists(atPath: path), SystemSnapshot.storeProblem(path) == nil {
                paired = ((try? await options.open().pairedSensors()) ?? []).map(\.identifier)
            }
            let bluetoothPath: BluetoothPath
            do {
                let backend = try await BluetoothBackend.current()
                bluetoothPath = BluetoothPath(
                    throughBluetoothd: backend.kind == .dbus, description: backend.description)
            } catch {
                bluetoothPath = BluetoothPath(throughBluetoothd: false, description: "", problem: error.description)
            }
            var system = SystemSnapshot.gather(
                storePath: path, pairedIdentifiers: paired, mainConfigurationPath: bluetoothConfiguration)
            if bluetoothPath.throughBluetoothd { await Self.addRoles(to: &system) }
            let report = DoctorReport(system, path: bluetoothPath)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else {
                for check in report.checks {
                    let mark = check.passed ? "✔" : "✘"
                    print("\(mark) \(check.title): \(check.detail)" + (check.fix.map { "; fix: \($0)" } ?? ""))
                }
                print(
                    report.canRecord
                        ? "Recording can work." : "Recording cannot work until the ✘ lines that block it are fixed.")
            }
            if !report.canRecord { throw ExitCode(1) }
        }

        /// Each adapter's LE roles as bluetoothd reports them (`Roles`), when it answers.
        static func addRoles(to system: inout SystemSnapshot) async {
            guard let bus = try? SystemBus.shared(),
                let objects = try? await BlueZClient(connection: bus, callTimeout: .seconds(5)).managedObjects()
            else { return }
            for index in system.adapters.indices {
                system.adapters[index].roles =
                    objects.properties("/org/bluez/\(system.adapters[index].name)", BlueZ.adapter)?["Roles"]?
                    .stringArray
            }
        }
    }
}
