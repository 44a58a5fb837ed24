import BluetoothLE
import CBlueZ
import CUdev
import Glibc

/// A Bluetooth controller the kernel knows: `hci0`, `hci1`, …
public struct BluetoothAdapter: Hashable, Sendable, CustomStringConvertible {
    /// The kernel name, `hciN`.
    public var name: String
    /// The device's sysfs path.
    public var sysPath: String
    /// The controller's public address, when known (from `HCIGETDEVINFO`, else the `address`
    /// sysfs attribute).
    public var address: String?
    /// The driver of its parent device (`btusb`, `hci_uart`, …), when udev reports one.
    public var driver: String?

    public init(name: String, sysPath: String, address: String? = nil, driver: String? = nil) {
        self.name = name
        self.sysPath = sysPath
        self.address = address
        self.driver = driver
    }

    /// The `N` of `hciN`, libbluetooth's device id.
    public var deviceID: Int32? { name.hasPrefix("hci") ? Int32(name.dropFirst(3)) : nil }

    public var description: String {
        [name, address ?? "address unknown", driver].compactMap { $0 }.joined(separator: "  ")
    }

    /// Whether a `bluetooth` subsystem device is an adapter: `DEVTYPE=host`, or, when udev gives no
    /// device type, a name without the `:HANDLE` suffix that live connections (`DEVTYPE=link`)
    /// carry (Linux `net/bluetooth/hci_sysfs.c`).
    static func isAdapter(sysname: String, devtype: String?) -> Bool {
        if let devtype { return devtype == "host" }
        return sysname.hasPrefix("hci") && !sysname.contains(":")
    }
}

/// Bluetooth adapters found through libudev: enumeration of the `bluetooth` subsystem.
///
/// Works without Bluetooth in the kernel (and under `umockdev-run`, which fakes sysfs): udev only
/// reads sysfs. The address comes from `hci_devinfo()` when the kernel answers, else from sysfs.
public enum BluetoothAdapters {
    /// The adapters present now, sorted by name.
    ///
    /// - Throws: ``BlueZError/Code/system`` if libudev cannot be used at all.
    public static func list() throws(BlueZError) -> [BluetoothAdapter] {
        guard let udev = udev_new() else { throw BlueZError(.system, "libudev could not be initialised.") }
        defer { udev_unref(udev) }
        guard let enumerate = udev_enumerate_new(udev) else {
            throw BlueZError(.system, "libudev could not enumerate devices.")
        }
        defer { udev_enumerate_unref(enumerate) }
        udev_enumerate_add_match_subsystem(enumerate, "bluetooth")
        guard udev_enumerate_scan_devices(enumerate) >= 0 else {
            throw BlueZError(.system, "libudev could not scan the bluetooth subsystem.")
        }
        var adapters: [BluetoothAdapter] = []
        var entry = udev_enumerate_get_list_entry(enumerate)
        while let current = entry {
            defer { entry = udev_list_entry_get_next(current) }
            guard let path = udev_list_entry_get_name(current),
                let device = udev_device_new_from_syspath(udev, path)
            else { continue }
            defer { udev_device_unref(device) }
            if let adapter = adapter(from: device) { adapters.append(adapter) }
        }
        return adapters.sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
    }

    /// The adapter a udev device describes, or `nil` for a link or another kind of device.
    static func adapter(from device: OpaquePointer) -> BluetoothAdapter? {
        guard let sysname = string(udev_device_get_sysname(device)),
            BluetoothAdapter.isAdapter(sysname: sysname, devtype: string(udev_device_get_devtype(device)))
        else {
            return nil
        }
        var adapter = BluetoothAdapter(name: sysname, sysPath: string(udev_device_get_syspath(device)) ?? "")
        // A controller plugged in moments ago reports all zeros until the kernel has read its
        // address: that is "unknown", never an address.
        adapter.address =
            kernelAddress(of: adapter)
            ?? string(udev_device_get_sysattr_value(device, "address")).map { $0.uppercased() }.flatMap {
                $0 == "00:00:00:00:00:00" ? nil : $0
            }
        if let parent = udev_device_get_parent(device) {
            adapter.driver = driver(of: parent) ?? udev_device_get_parent(parent).flatMap(driver(of:))
        }
        return adapter
    }

    /// The driver bound to a device: its `driver` link, else its `DRIVER` property.
    private static func driver(of device: OpaquePointer) -> String? {
        string(udev_device_get_driver(device)) ?? string(udev_device_get_property_value(device, "DRIVER"))
    }

    /// The address from `HCIGETDEVINFO`, which needs no privilege but does need Bluetooth in the kernel.
    private static func kernelAddress(of adapter: BluetoothAdapter) -> String? {
        adapter.deviceID.flatMap(AdapterSelection.status(of:))?.address?.description
    }

    static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}
