import BlueZTransport
import BluetoothLE
import Foundation

/// bluetoothd over one bus connection: its objects, its adapters, and the calls the scanner, the sensors and
/// pairing make, each turning bluetoothd's errors into one sentence (``BlueZError``).
public struct BlueZClient: Sendable {
    public let connection: BusConnection
    /// How long a call waits for bluetoothd's reply.
    public var callTimeout: Duration

    public init(connection: BusConnection, callTimeout: Duration = .seconds(25)) {
        self.connection = connection
        self.callTimeout = callTimeout
    }

    /// Calls one of bluetoothd's methods; a D-Bus error becomes a ``BlueZError`` sentence.
    public func call(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        timeout: Duration? = nil
    ) async throws(BlueZError) -> [DBusValue] {
        do throws(DBusError) {
            return try await connection.call(
                BlueZ.service, path, interface, member, arguments, timeout: timeout ?? callTimeout)
        } catch {
            throw Self.sentence(for: error, calling: member, at: path)
        }
    }

    /// Everything bluetoothd exports now.
    public func managedObjects() async throws(BlueZError) -> BlueZObjects {
        let body = try await call("/", BlueZ.objectManager, "GetManagedObjects")
        var objects = BlueZObjects()
        do throws(BlueZReplyError) { try objects.load(managedObjects: body) } catch {
            throw BlueZError(.unexpectedReply, error.description)
        }
        return objects
    }

    /// The adapter to use: `/org/bluez/NAME` for the one named (or `$OPENHEALTHKIT_ADAPTER`'s), else the first
    /// powered one that can be a central (its `Roles` name `central`, or it predates `Roles`) and whose address is not
    /// `peer`'s.
    public func adapter(
        named name: String?, in objects: BlueZObjects, avoiding peer: BluetoothAddress? = nil
    ) throws(BlueZError) -> String {
        let adapters = objects.adapters
        if let name = name ?? AdapterSelection.adapterFromEnvironment() {
            guard let adapter = adapters.first(where: { $0.path == "/org/bluez/\(name)" }) else {
                throw BlueZError(
                    .noAdapter, "bluetoothd has no adapter \(name); `bluetoothctl list` shows the ones it has.")
            }
            guard Self.canBeCentral(adapter.path, in: objects) else { throw Self.notCentral(name) }
            guard adapter.powered else { throw Self.poweredOff(name, in: objects) }
            return adapter.path
        }
        guard !adapters.isEmpty else {
            throw BlueZError(
                .noAdapter,
                "bluetoothd has no Bluetooth adapter; plug one in or unblock it with `rfkill unblock bluetooth`.")
        }
        let centrals = adapters.filter { Self.canBeCentral($0.path, in: objects) }
        guard !centrals.isEmpty else { throw Self.notCentral(Self.name(of: adapters[0].path)) }
        let candidates = centrals.filter { adapter in
            guard let peer, let text = objects.properties(adapter.path, BlueZ.adapter)?["Address"]?.string else {
                return true
            }
            return BluetoothAddress(text)?.rawValue != peer.rawValue
        }
        guard let powered = candidates.first(where: \.powered) else {
            throw Self.poweredOff(Self.name(of: (candidates.first ?? centrals[0]).path), in: objects)
        }
        return powered.path
    }

    /// Whether an adapter can connect to a sensor: newer bluetoothd lists an adapter's LE roles in `Roles` (`central`,
    /// `peripheral`, `central-peripheral`, from the controller's supported LE states); an adapter without the property
    /// is taken as before. bleak skips adapters without `central` the same way.
    static func canBeCentral(_ path: String, in objects: BlueZObjects) -> Bool {
        guard let roles = objects.properties(path, BlueZ.adapter)?["Roles"]?.stringArray else { return true }
        return roles.contains("central")
    }

    private static func notCentral(_ name: String) -> BlueZError {
        BlueZError(
            .noAdapter,
            "\(name) cannot connect to sensors: bluetoothd says it cannot take the central role (its Roles); use another adapter with --adapter."
        )
    }

    /// The names (`hci0`, …) of the powered adapters bluetoothd has that can connect to what they hear (the
    /// central role).
    public func poweredAdapters(in objects: BlueZObjects) -> [String] {
        objects.adapters.filter { $0.powered && Self.canBeCentral($0.path, in: objects) }.map { Self.name(of: $0.path) }
    }

    /// An adapter's name from its object path (`/org/bluez/hci0` → `hci0`).
    static func name(of path: String) -> String { String(path.split(separator: "/").last ?? "hci0") }

    /// An adapter that is off: blocked by rfkill (bluetoothd 5.66 and later say `PowerState` `off-blocked`, and
    /// refuse `power on` with `org.bluez.Error.Blocked`), or simply powered off.
    private static func poweredOff(_ name: String, in objects: BlueZObjects? = nil) -> BlueZError {
        if objects?.properties("/org/bluez/\(name)", BlueZ.adapter)?["PowerState"]?.string == "off-blocked" {
            return BlueZError(
                .adapterDown,
                "\(name) is blocked by rfkill (airplane mode, or a wireless switch): run `rfkill unblock bluetooth`, or turn the switch on."
            )
        }
        return BlueZError(
            .adapterDown,
            "\(name) is powered off: run `bluetoothctl power on` (with `bluetoothctl select` for another adapter).")
    }

    /// Sets a property through `org.freedesktop.DBus.Properties.Set`.
    public func set(
        _ path: String, _ interface: String, _ property: String, _ value: DBusValue
    ) async throws(BlueZError) {
        _ = try await call(path, BlueZ.properties, "Set", [.string(interface), .string(property), .variant(value)])
    }

    // MARK: - Errors

    /// One sentence for a failed call, saying what to do where there is something to do: the one table of
    /// bluetoothd's errors (each as bluetoothd sends it: `src/error.c`, `src/device.c`, `src/adapter.c`,
    /// `src/gatt-client.c`), and sd-bus's own. A Connect's failures are the sensor's (`DBusSensor.connectFailure`).
    static func sentence(for error: DBusError, calling member: String, at path: String) -> BlueZError {
        let detail = error.message.isEmpty ? "" : " (\(error.message))"
        switch error.name {
        case DBusError.disconnectedName:
            return BlueZError(.closed, "The system bus connection was lost while calling \(member).")
        case DBusError.cancelledName:
            return BlueZError(.closed, "\(member) was abandoned: what asked for it stopped.")
        case DBusError.malformedName:
            return BlueZError(.system, "bluetoothd sent an unexpected reply to \(member): \(error.message).")
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            return BlueZError(
                .bluetoothUnavailable,
                "bluetoothd is not running; start it with `sudo systemctl start bluetooth` (or set OPENHEALTHKIT_BLUETOOTH=raw)."
            )
        case "org.freedesktop.DBus.Error.AccessDenied":
            return BlueZError(
                .permissionDenied,
                "The system bus refused \(member) for this user\(detail); add the user to the bluetooth group (`sudo usermod -aG bluetooth $USER`, then log in again), or, in a snap or a flatpak, grant it the bluez permission."
            )
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout":
            return BlueZError(.timedOut, "bluetoothd did not answer \(member) in time.")
        case "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownMethod":
            return BlueZError(.connectionFailed, "bluetoothd no longer has \(path) (\(member) failed\(detail)).")
        case "org.bluez.Error.NotReady":
            return BlueZError(.adapterDown, "The adapter is not ready (powered off?); run `bluetoothctl power on`.")
        case "org.bluez.Error.NotPermitted" where ["Notify acquired", "Write acquired"].contains(error.message):
            // Another client of bluetoothd holds the characteristic's socket (`AcquireNotify`, `AcquireWrite`).
            return BlueZError(
                .busy, "Another program holds what \(member) asks for\(detail); close it, or record from that program.")
        case "org.bluez.Error.NotPermitted" where ["Read not permitted", "Write not permitted"].contains(error.message):
            // The characteristic does not allow it at all: no bond would change that.
            return BlueZError(.connectionFailed, "The sensor does not permit \(member)\(detail).")
        case "org.bluez.Error.NotPermitted", "org.bluez.Error.NotAuthorized":
            return BlueZError(
                .permissionDenied,
                "bluetoothd did not permit \(member)\(detail); pair the sensor with `workout pair` (with --again if it was paired before: its bond is stale)."
            )
        case "org.bluez.Error.AuthenticationCanceled", "org.bluez.Error.AuthenticationTimeout":
            // The agent asked never answered, or cancelled: a desktop's dialog, dismissed or unseen.
            return BlueZError(
                .connectionFailed,
                "Nobody answered the pairing request\(detail) (a desktop's Bluetooth dialog may have taken it); run `workout pair` again, whose own agent answers it."
            )
        case "org.bluez.Error.AuthenticationFailed", "org.bluez.Error.AuthenticationRejected":
            return BlueZError(
                .connectionFailed,
                "Pairing failed\(detail); if the sensor was reset or bonded with another device since, `workout pair --again` forgets the old bond and pairs afresh."
            )
        case "org.bluez.Error.InProgress" where member == "StartDiscovery":
            return BlueZError(
                .busy, "A discovery on this adapter is already under way (this program's, or the kernel's); try again.")
        case "org.bluez.Error.InProgress" where member == "WriteValue":
            return BlueZError(.busy, "A write to the sensor is still under way; try again.")
        case "org.bluez.Error.InProgress":
            return BlueZError(.busy, "bluetoothd is already doing \(member) for this device\(detail).")
        case "org.bluez.Error.Failed" where error.message.hasSuffix("ATT error: 0xfd"):
            // ATT's Client Characteristic Configuration Descriptor Improperly Configured (Core Supplement 1.2).
            return BlueZError(
                .connectionFailed, "The sensor refused \(member): its indications were not enabled first (ATT 0xFD).")
        case "org.bluez.Error.Failed" where error.message.hasSuffix("ATT error: 0xfe"):
            // ATT's Procedure Already in Progress (Core Supplement 1.2).
            return BlueZError(.busy, "The sensor is still carrying out an earlier request (ATT 0xFE); try again.")
        default:
            let name = error.name.hasPrefix("org.bluez.Error.") ? String(error.name.dropFirst(16)) : error.name
            return BlueZError(.connectionFailed, "bluetoothd could not \(member): \(name)\(detail).")
        }
    }
}

extension BlueZError.Code {
    /// bluetoothd sent a reply or a signal of a shape its API does not document.
    public static let unexpectedReply = BlueZError.Code(rawValue: "unexpectedReply")
}
