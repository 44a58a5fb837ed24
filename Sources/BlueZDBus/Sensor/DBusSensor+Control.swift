import BlueZTransport
import BluetoothLE
import FitnessSensors

/// Control of a fitness machine through bluetoothd: requests are `GattCharacteristic1.WriteValue` with type
/// `request` (bluetoothd answers once the machine's Write Response came), and the control point's indications
/// arrive with the measurements (`StartNotify`: bluetoothd hands no socket for an indicating characteristic).
extension DBusSensor {
    /// A session is subscribed: its writable characteristics are reachable, and the control link is up (with a
    /// control point when its indications were enabled).
    func controlLinkUp(_ characteristics: [BlueZCharacteristic], subscribed: Set<UInt16>, client: BlueZClient) {
        var writable: [UInt16: String] = [:]
        for characteristic in characteristics where characteristic.flags.contains("write") {
            if let uuid = characteristic.uuid.shortValue { writable[uuid] = characteristic.path }
        }
        let controlPoint = GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint
        engine.control.up(controlPoint: subscribed.contains(controlPoint) && writable[controlPoint] != nil) {
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
