import BlueZTransport
import Foundation

/// The permanent failures a recording checks before it starts, each one sentence naming the fix: an address that
/// does not parse, a `unix:` path where no simulated peripheral listens, a Bluetooth address on a machine without
/// an adapter (or without Bluetooth in its kernel). Transient failures (out of range, refused, dropped) are not
/// checked here: the sensors retry them with backoff and the status line shows them.
enum SensorPreflight {
    static func check(_ identifiers: [String]) throws {
        var needsAdapter = false
        for identifier in identifiers {
            switch try SensorAddress(parsing: identifier) {
            case .unix(let path):
                try checkSocket(path)
            case .bluetooth:
                needsAdapter = true
            }
        }
        if needsAdapter {
            let adapters: [BluetoothAdapter]
            do { adapters = try BluetoothAdapters.list() } catch {
                throw CommandFailure(
                    "Bluetooth adapters cannot be listed (\(error.message)); check that udev is running.")
            }
            guard !adapters.isEmpty else {
                throw CommandFailure(
                    "No Bluetooth adapter is present (or this kernel has no Bluetooth); plug one in, "
                        + "`rfkill unblock bluetooth`, or record from a simulated sensor with --sensor unix:PATH.")
            }
        }
    }

    /// A `unix:` path must be a socket: a missing path or a plain file is a mistake no retry fixes.
    static func checkSocket(_ path: String) throws {
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: path) } catch {
            throw CommandFailure(
                "Nothing listens at \(path); start a simulated sensor with "
                    + "`workout peripheral --profile heart-rate --listen \(path)` or fix the path.")
        }
        guard attributes[.type] as? FileAttributeType == .typeSocket else {
            throw CommandFailure(
                "\(path) is not a socket; give the path a simulated sensor listens at "
                    + "(`workout peripheral --listen \(path)`).")
        }
    }
}
