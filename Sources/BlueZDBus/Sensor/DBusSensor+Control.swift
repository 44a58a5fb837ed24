import BlueZTransport
import FitnessSensors

extension DBusSensor: ControllableSensor {
    /// `WriteValue` with type `request` on the current session's characteristic: bluetoothd sends an ATT Write
    /// Request and replies once the Write Response arrived.
    ///
    /// - Throws: ``BlueZError`` when the sensor is not connected or does not offer the characteristic, and for a
    ///   refused write bluetoothd's error in one sentence, with its name and message as it words them (an ATT error
    ///   code comes as `Failed` with the code in its message).
    public func writeWithResponse(_ bytes: [UInt8], to characteristic: UInt16) async throws {
        let (client, path) = try controlLink.target(for: characteristic, of: name)
        _ = try await client.call(
            path, BlueZ.characteristic, "WriteValue",
            [.bytes(bytes), .properties([("type", .string("request"))])])
    }

    public func watchControlLink(_ handler: (@Sendable (ControlLinkEvent) -> Void)?) {
        controlLink.watch(handler)
    }
}
