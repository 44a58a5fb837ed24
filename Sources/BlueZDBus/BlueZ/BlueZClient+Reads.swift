import BlueZTransport
import BluetoothLE
import FitnessSensors

extension BlueZClient {
    /// `GattCharacteristic1.ReadValue` of the characteristic at `path`: its bytes.
    func readValue(_ path: String) async throws(BlueZError) -> [UInt8] {
        let reply = try await call(path, BlueZ.characteristic, "ReadValue", [.properties([])], timeout: .seconds(10))
        guard reply.count == 1, let bytes = reply[0].byteArray else {
            throw BlueZError(
                .unexpectedReply,
                "bluetoothd sent an unexpected reply to ReadValue: '\(reply.map(\.signature).joined())', not 'ay'.")
        }
        return bytes
    }

    /// The Device Information characteristics among `characteristics` that can be read, read once each. One that
    /// cannot be read (refused, needing security the link cannot get) or does not decode is left out and handed to
    /// `skipped`: Device Information is never a reason to fail.
    func deviceInformation(
        _ characteristics: [BlueZCharacteristic], skipped: (UInt16, any Error) -> Void
    ) async -> DeviceInformation {
        var information = DeviceInformation()
        for characteristic in characteristics where characteristic.canRead {
            guard let uuid = characteristic.uuid.shortValue, DeviceInformationField(rawValue: uuid) != nil else {
                continue
            }
            do {
                _ = try information.update(characteristic: uuid, bytes: try await readValue(characteristic.path))
            } catch {
                skipped(uuid, error)
            }
        }
        return information
    }
}
