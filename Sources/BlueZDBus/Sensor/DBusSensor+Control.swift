import BlueZTransport
import BluetoothLE
import FitnessSensors

/// Control of a fitness machine through bluetoothd: requests are `GattCharacteristic1.WriteValue` with type
/// `request` (bluetoothd answers once the machine's Write Response came), and the control point's indications
/// arrive with the measurements (`StartNotify`: bluetoothd hands no socket for an indicating characteristic).
extension DBusSensor: ControllableSensor {
    /// Writes with response through bluetoothd.
    ///
    /// - Throws: ``BlueZError`` when the sensor is not connected, does not offer the characteristic for writing, or
    ///   bluetoothd (or the machine behind it) refused the write, with bluetoothd's own message.
    public func writeWithResponse(_ bytes: [UInt8], to characteristic: UInt16) async throws {
        try await control.write(bytes, to: characteristic, name: name)
    }

    public func watchControlLink(_ handler: (@Sendable (ControlLinkEvent) -> Void)?) {
        control.watch(handler)
    }

    /// A session is subscribed: its writable characteristics are reachable, and the control link is up (with a
    /// control point when its indications were enabled).
    func controlLinkUp(_ characteristics: [BlueZCharacteristic], subscribed: Set<UInt16>, client: BlueZClient) {
        var writable: [UInt16: String] = [:]
        for characteristic in characteristics where characteristic.flags.contains("write") {
            if let uuid = characteristic.uuid.shortValue { writable[uuid] = characteristic.path }
        }
        let controlPoint = GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint
        control.up(controlPoint: subscribed.contains(controlPoint) && writable[controlPoint] != nil) {
            [name, writable] bytes, characteristic in
            let hex = "0x" + String(characteristic, radix: 16, uppercase: true)
            guard let path = writable[characteristic] else {
                throw BlueZError(.connectionFailed, "\(name) offers no characteristic \(hex) to write.")
            }
            _ = try await client.call(
                path, BlueZ.characteristic, "WriteValue", [.bytes(bytes), .properties([("type", .string("request"))])],
                timeout: .seconds(10))
        }
    }
}
