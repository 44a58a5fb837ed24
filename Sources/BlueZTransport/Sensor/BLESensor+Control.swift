import BluetoothLE
import FitnessSensors

extension BLESensor: ControllableSensor {
    /// The connection's GATT client and the value handles it can write, while a session is up; and the one
    /// watcher of the control link.
    struct ControlLink {
        var client: GATTClient?
        /// Value handles of the current connection's characteristics, by 16-bit UUID.
        var handles: [UInt16: UInt16] = [:]
        var hasControlPoint = false
        var watcher: (@Sendable (ControlLinkEvent) -> Void)?
    }

    /// The characteristics whose values go to the control link's watcher as they are.
    static let controlCharacteristics: Set<UInt16> = [
        GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint,
        GATTAssignedNumbers.Characteristic.fitnessMachineStatus,
    ]

    /// Writes with an ATT Write Request on the current connection and waits for the Write Response.
    ///
    /// - Throws: ``BlueZError`` when the sensor is not connected or does not offer the characteristic; the GATT
    ///   client's errors (``ATTErrorResponse`` for a refused write, a timeout) as they are.
    public func writeWithResponse(_ bytes: [UInt8], to characteristic: UInt16) async throws {
        let (client, handle) = controlLink.withLock { ($0.client, $0.handles[characteristic]) }
        guard let client else { throw BlueZError(.connectionFailed, "\(name) is not connected.") }
        guard let handle else {
            throw BlueZError(
                .connectionFailed,
                "\(name) offers no characteristic 0x\(String(characteristic, radix: 16, uppercase: true)).")
        }
        try await client.writeValue(bytes, handle: handle)
    }

    public func watchControlLink(_ handler: (@Sendable (ControlLinkEvent) -> Void)?) {
        let current = controlLink.withLock { link -> ControlLinkEvent? in
            link.watcher = handler
            return link.client == nil ? nil : .connected(controlPoint: link.hasControlPoint)
        }
        if let current { handler?(current) }
    }

    /// A session is set up: its client can write `handles` (value handles by UUID, those subscribed to among them).
    func controlLinkUp(_ client: GATTClient, handles: [UInt16: UInt16]) {
        let controlPoint = GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint
        let watcher = controlLink.withLock { link in
            link.client = client
            link.handles = handles
            link.hasControlPoint = handles[controlPoint] != nil
            return link.watcher
        }
        watcher?(.connected(controlPoint: handles[controlPoint] != nil))
    }

    /// The session ended.
    func controlLinkDown() {
        let watcher = controlLink.withLock { link -> (@Sendable (ControlLinkEvent) -> Void)? in
            let wasUp = link.client != nil
            link.client = nil
            link.handles = [:]
            link.hasControlPoint = false
            return wasUp ? link.watcher : nil
        }
        watcher?(.disconnected)
    }

    /// Hands a control point or status value to the watcher.
    func controlValue(_ characteristic: UInt16, _ bytes: [UInt8]) {
        let watcher = controlLink.withLock { $0.watcher }
        watcher?(.value(characteristic: characteristic, bytes: bytes))
    }
}
