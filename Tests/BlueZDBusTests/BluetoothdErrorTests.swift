import BlueZTransport
import Testing

@testable import BlueZDBus

/// The one table of bluetoothd's errors (issue 36, item 5): each error as bluetoothd sends it (its name and message,
/// from BlueZ's `src/error.c`, `src/device.c`, `src/adapter.c`, `src/gatt-client.c`), and sd-bus's, becomes one
/// sentence that says what to do where there is something to do.
@Suite struct BluetoothdErrorTests {
    static let path = "/org/bluez/hci0/dev_C7_3A_10_5E_22_F1"

    func sentence(_ name: String, _ message: String, calling member: String) -> BlueZError {
        BlueZClient.sentence(for: DBusError(name: name, message: message), calling: member, at: Self.path)
    }

    @Test(arguments: [
        // (error name, bluetoothd's message, the call, the code, what the sentence says)
        ("org.bluez.Error.NotReady", "Resource Not Ready", "StartDiscovery", "adapterDown", "`bluetoothctl power on`"),
        (
            "org.bluez.Error.InProgress", "Operation already in progress", "StartDiscovery", "busy",
            "A discovery on this adapter is already under way"
        ),
        (
            "org.bluez.Error.InProgress", "Operation already in progress", "WriteValue", "busy",
            "A write to the sensor is still under way"
        ),
        ("org.bluez.Error.InProgress", "In Progress", "ReadValue", "busy", "bluetoothd is already doing ReadValue"),
        ("org.bluez.Error.NotPermitted", "Not paired", "StartNotify", "permissionDenied", "`workout pair`"),
        ("org.bluez.Error.NotPermitted", "Notify acquired", "AcquireNotify", "busy", "Another program holds"),
        (
            "org.bluez.Error.NotPermitted", "Read not permitted", "ReadValue", "connectionFailed",
            "The sensor does not permit ReadValue"
        ),
        (
            "org.bluez.Error.AuthenticationFailed", "Authentication Failed", "Pair", "connectionFailed",
            "`workout pair --again`"
        ),
        (
            "org.bluez.Error.AuthenticationCanceled", "Authentication Canceled", "Pair", "connectionFailed",
            "Nobody answered the pairing request"
        ),
        (
            "org.bluez.Error.AuthenticationTimeout", "Authentication Timeout", "Pair", "connectionFailed",
            "a desktop's Bluetooth dialog"
        ),
        (
            "org.bluez.Error.Failed", "Operation failed with ATT error: 0xfd", "WriteValue", "connectionFailed",
            "indications were not enabled first (ATT 0xFD)"
        ),
        (
            "org.bluez.Error.Failed", "Operation failed with ATT error: 0xfe", "WriteValue", "busy",
            "an earlier request (ATT 0xFE)"
        ),
        (
            "org.freedesktop.DBus.Error.NoReply", "Method call timed out", "GetManagedObjects", "timedOut",
            "bluetoothd did not answer GetManagedObjects in time"
        ),
        (
            "org.freedesktop.DBus.Error.AccessDenied", "Rejected send message", "StartDiscovery", "permissionDenied",
            "snap or a flatpak"
        ),
        (
            "org.freedesktop.DBus.Error.ServiceUnknown", "The name is not activatable", "GetManagedObjects",
            "bluetoothUnavailable", "`sudo systemctl start bluetooth`"
        ),
        (
            "org.freedesktop.DBus.Error.UnknownObject", "Unknown object", "ReadValue", "connectionFailed",
            "bluetoothd no longer has /org/bluez/hci0/dev_C7_3A_10_5E_22_F1"
        ),
        (
            "org.openhealthkit.Error.Cancelled", "The wait for the reply was cancelled", "StopNotify", "closed",
            "StopNotify was abandoned"
        ),
        (
            "org.bluez.Error.DoesNotExist", "Does Not Exist", "RemoveDevice", "connectionFailed",
            "bluetoothd could not RemoveDevice: DoesNotExist (Does Not Exist)."
        ),
    ])
    func eachErrorIsOneSentence(
        name: String, message: String, member: String, code: String, says: String
    ) {
        let error = sentence(name, message, calling: member)
        #expect(error.code.rawValue == code, "\(error)")
        #expect(error.message.contains(says), "\(error)")
        #expect(error.message.hasSuffix(".") && !error.message.contains("\n"), "\(error)")
    }
}
