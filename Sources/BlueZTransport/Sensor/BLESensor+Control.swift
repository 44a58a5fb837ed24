import BluetoothLE
import FitnessSensors

extension BLESensor: ControllableSensor {
    /// Writes with an ATT Write Request on the current connection and waits for the Write Response.
    ///
    /// - Throws: ``BlueZError`` when the sensor is not connected or does not offer the characteristic; the GATT
    ///   client's errors (``ATTErrorResponse`` for a refused write, a timeout) as they are.
    public func writeWithResponse(_ bytes: [UInt8], to characteristic: UInt16) async throws {
        let (client, handle) = try controlLink.target(for: characteristic, of: name)
        try await client.writeValue(bytes, handle: handle)
    }

    public func watchControlLink(_ handler: (@Sendable (ControlLinkEvent) -> Void)?) {
        controlLink.watch(handler)
    }
}
