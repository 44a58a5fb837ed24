import BluetoothLE
import FitnessSensors

extension BLESensor: ControllableSensor {
    /// Writes with an ATT Write Request on the current connection and waits for the Write Response.
    ///
    /// - Throws: ``BlueZError`` when the sensor is not connected or does not offer the characteristic; the GATT
    ///   client's errors (``ATTErrorResponse`` for a refused write, a timeout) as they are.
    public func writeWithResponse(_ bytes: [UInt8], to characteristic: UInt16) async throws {
        try await control.write(bytes, to: characteristic, name: name)
    }

    public func watchControlLink(_ handler: (@Sendable (ControlLinkEvent) -> Void)?) {
        control.watch(handler)
    }

    /// A session is set up: its client can write `handles` (value handles by UUID, those subscribed to among them).
    func controlLinkUp(_ client: GATTClient, handles: [UInt16: UInt16]) {
        let controlPoint = GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint
        control.up(controlPoint: handles[controlPoint] != nil) { [name] bytes, characteristic in
            guard let handle = handles[characteristic] else {
                throw BlueZError(
                    .connectionFailed,
                    "\(name) offers no characteristic 0x\(String(characteristic, radix: 16, uppercase: true)).")
            }
            try await client.writeValue(bytes, handle: handle)
        }
    }
}
