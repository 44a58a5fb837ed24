import BluetoothLE
import FitnessSensors

/// A simulated BLE peripheral: a ``GATTServer`` per connected central, speaking ATT over any
/// ``SocketBearer`` (an `AF_UNIX` `SOCK_SEQPACKET` socket, which keeps PDU boundaries as L2CAP
/// does), with a ``PeripheralSignal`` to notify.
///
/// Each connection gets its own server state (ATT_MTU, CCCDs), as on a real device: an
/// unbonded central must subscribe again after every reconnect. The peripheral behaves like the
/// straps it stands in for in one more way: when a central enables the measurement's
/// notifications, it immediately re-sends the last value it notified (``resendsLastValueOnSubscribe``),
/// which a central must recognise as a duplicate.
///
/// ```swift
/// let peripheral = SimulatedPeripheral(profile: .heartRateStrap())
/// Task { await peripheral.serve(bearer) }       // one per central
/// await peripheral.step()                       // notify the next value
/// ```
///
/// Core 5.3 Vol 3 Part F (ATT) and Part G §4.10 (notifications).
public actor SimulatedPeripheral {
    public let profile: PeripheralProfile
    /// Whether enabling the measurement's notifications re-sends the last notified value.
    public var resendsLastValueOnSubscribe: Bool
    private var signal: PeripheralSignal
    private var connections: [Int: (server: GATTServer, bearer: SocketBearer)] = [:]
    private var nextConnectionID = 0
    private var lastMeasurement: [UInt8]?
    /// How many times each connection enabled the measurement's notifications, in connection order.
    public private(set) var measurementSubscriptions: [Int] = []
    /// How many notifications were sent, over all connections (each central's copy counts; re-sends on subscribe
    /// too): what a central that read them all has received.
    public private(set) var notificationsSent = 0
    private var subscriptionWaiters: [(id: Int, count: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextWaiter = 0
    private var protections: [BluetoothUUID: (error: ATTErrorCode, untilEncrypted: Bool)] = [:]
    /// Whether a fitness machine grants control when asked (a trainer another app holds refuses it).
    public var grantsControl: Bool { controlPoint.grantsControl }
    /// Who holds control of the machine, and how it answers its control point.
    private var controlPoint = SimulatedControlPoint()
    /// Control point requests received, in order, with their result codes (a control session, for tests).
    public private(set) var controlRequests:
        [(FitnessMachineControlPoint.Request, FitnessMachineControlPoint.ResultCode)] = []
    private var encryptedConnections: Set<Int> = []
    /// The ATT requests each central made, in order: the connection (numbered from 0), the opcode and the handle
    /// (a test checks what a central asks for, and when).
    public private(set) var requests: [(connection: Int, opcode: UInt8, handle: UInt16)] = []

    public init(profile: PeripheralProfile, resendsLastValueOnSubscribe: Bool = true) {
        self.profile = profile
        self.resendsLastValueOnSubscribe = resendsLastValueOnSubscribe
        signal = PeripheralSignal(for: profile)
    }

    /// How many centrals are connected now.
    public var connectionCount: Int { connections.count }

    /// Answers one central until its bearer closes (or the task is cancelled).
    public func serve(_ bearer: SocketBearer) async {
        let id = nextConnectionID
        nextConnectionID += 1
        connections[id] = (GATTServer(database: GATTDatabase(services: profile.database)), bearer)
        measurementSubscriptions.append(0)
        defer {
            connections[id] = nil
            bearer.close()
        }
        while let pdu = try? await bearer.receive() {
            guard var server = connections[id]?.server else { return }
            if pdu.count >= 3 { requests.append((id, pdu[0], UInt16(pdu[1]) | UInt16(pdu[2]) << 8)) }
            if let refusal = refusal(of: pdu, on: server, connection: id) {
                try? await bearer.send(refusal)
                continue
            }
            let response = server.handle(request: pdu)
            let subscribed = enablesMeasurementNotifications(pdu, on: server)
            let control = controlPointRequest(pdu, on: server)
            connections[id]?.server = server
            if let response { try? await bearer.send(response) }
            if subscribed { await subscriptionEnabled(connection: id, bearer: bearer) }
            if let control { await answer(control, connection: id, bearer: bearer) }
        }
    }

    /// Notifies the signal's next value (passed through `transform`: see ``PeripheralFaults``) to every subscribed
    /// central and returns it.
    @discardableResult
    public func step(_ transform: @Sendable ([UInt8]) -> [UInt8] = { $0 }) async -> [UInt8] {
        let value = transform(signal.next())
        await publish(value, of: profile.measurement)
        lastMeasurement = value
        return value
    }

    /// Sets a characteristic's value and notifies every central subscribed to it.
    public func publish(_ value: [UInt8], of characteristic: BluetoothUUID) async {
        for id in connections.keys.sorted() {
            guard var connection = connections[id] else { continue }
            let pdu = connection.server.updateValue(value, of: characteristic)
            connections[id]?.server = connection.server
            if let pdu {
                notificationsSent += 1
                try? await connection.bearer.send(pdu)
            }
        }
    }

    /// Drops every central's link, as a strap does when it loses power or range; returns how many were dropped.
    @discardableResult
    public func disconnectAll() -> Int {
        for connection in connections.values { connection.bearer.close() }
        return connections.count
    }

    /// Refuses reads and writes of a characteristic's value and CCCD with `error`, as a sensor
    /// that protects it does: always, or (`untilEncrypted`) until ``encryptLatestLink()``.
    /// Insufficient Authentication (0x05) or Insufficient Encryption (0x0F) is what a sensor
    /// answers before pairing.
    public func protect(_ characteristic: BluetoothUUID, with error: ATTErrorCode, untilEncrypted: Bool = false) {
        protections[characteristic] = (error, untilEncrypted)
    }

    /// Marks the newest connection's link as encrypted: what pairing achieves on a real link.
    public func encryptLatestLink() {
        if let id = connections.keys.max() { encryptedConnections.insert(id) }
    }

    /// The Error Response to a Read, Read Blob or Write Request of a protected attribute.
    private func refusal(of pdu: [UInt8], on server: GATTServer, connection id: Int) -> [UInt8]? {
        guard pdu.count >= 3 else { return nil }
        let opcode = ATTOpcode(pdu[0])
        guard [ATTOpcode.readRequest, .readBlobRequest, .writeRequest].contains(opcode) else { return nil }
        let handle = UInt16(pdu[1]) | UInt16(pdu[2]) << 8
        for (uuid, protection) in protections {
            guard let entry = server.database.characteristic(uuid),
                handle == entry.valueHandle || handle == entry.cccdHandle,
                !(protection.untilEncrypted && encryptedConnections.contains(id))
            else { continue }
            return ATTErrorResponse(requestOpcode: opcode, handle: handle, errorCode: protection.error).encode()
        }
        return nil
    }

    /// Suspends until `count` subscriptions to the measurement (over all connections) have been made, or throws
    /// ``BlueZError`` `.timedOut` once `limit` of real time has passed without them.
    public func waitForMeasurementSubscriptions(_ count: Int, within limit: Duration = .seconds(30)) async throws {
        if measurementSubscriptions.reduce(0, +) >= count { return }
        nextWaiter += 1
        let id = nextWaiter
        let timer = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            expireWaiter(id, count: count, limit: limit)
        }
        defer { timer.cancel() }
        try await withCheckedThrowingContinuation { subscriptionWaiters.append((id, count, $0)) }
    }

    private func expireWaiter(_ id: Int, count: Int, limit: Duration) {
        guard let index = subscriptionWaiters.firstIndex(where: { $0.id == id }) else { return }
        subscriptionWaiters.remove(at: index).continuation.resume(
            throwing: BlueZError(
                .timedOut,
                "Waited \(limit) for \(count) subscription(s) to the measurement; \(measurementSubscriptions.reduce(0, +)) came."
            ))
    }

    private func subscriptionEnabled(connection id: Int, bearer: SocketBearer) async {
        measurementSubscriptions[id] += 1
        if resendsLastValueOnSubscribe, let last = lastMeasurement, var server = connections[id]?.server {
            let pdu = server.updateValue(last, of: profile.measurement)
            connections[id]?.server = server
            if let pdu {
                notificationsSent += 1
                try? await bearer.send(pdu)
            }
        }
        let total = measurementSubscriptions.reduce(0, +)
        let ready = subscriptionWaiters.filter { $0.count <= total }
        subscriptionWaiters.removeAll { $0.count <= total }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Sets whether the machine grants control when a central asks for it.
    public func setGrantsControl(_ grants: Bool) { controlPoint.grantsControl = grants }

    /// Takes control away from every central, as a machine does when another client takes it or a person presses
    /// its own buttons: Fitness Machine Status Control Permission Lost (0xFF, FTMS 1.0 §4.17); a central must ask
    /// for control again before its next request.
    public func revokeControl() async {
        let status = controlPoint.revokeControl()
        await publish(status, of: BluetoothUUID(GATTAssignedNumbers.Characteristic.fitnessMachineStatus))
    }

    /// Carries out a control point request and answers it with an indication of the control point, then announces
    /// what changed on Fitness Machine Status (``SimulatedControlPoint``).
    private func answer(_ bytes: [UInt8], connection id: Int, bearer: SocketBearer) async {
        let answer = controlPoint.answer(bytes, from: id) { signal.control($0) }
        if let request = answer.request { controlRequests.append((request, answer.result)) }
        let controlPointUUID = BluetoothUUID(GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint)
        guard var server = connections[id]?.server else { return }
        let pdu = server.updateValue(answer.response, of: controlPointUUID)
        connections[id]?.server = server
        if let pdu { try? await bearer.send(pdu) }
        if let status = answer.status {
            await publish(status, of: BluetoothUUID(GATTAssignedNumbers.Characteristic.fitnessMachineStatus))
        }
    }

    /// The value of a Write Request to the fitness machine control point, if `pdu` is one.
    private func controlPointRequest(_ pdu: [UInt8], on server: GATTServer) -> [UInt8]? {
        let controlPoint = BluetoothUUID(GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint)
        guard pdu.count >= 4, pdu[0] == ATTOpcode.writeRequest.rawValue,
            let handle = server.database.characteristic(controlPoint)?.valueHandle,
            UInt16(pdu[1]) | UInt16(pdu[2]) << 8 == handle
        else { return nil }
        return Array(pdu[3...])
    }

    /// Whether `pdu` is a Write Request of `01 00` to the measurement's CCCD.
    private func enablesMeasurementNotifications(_ pdu: [UInt8], on server: GATTServer) -> Bool {
        guard pdu.count == 5, pdu[0] == ATTOpcode.writeRequest.rawValue,
            let cccd = server.database.characteristic(profile.measurement)?.cccdHandle
        else { return false }
        return UInt16(pdu[1]) | UInt16(pdu[2]) << 8 == cccd && pdu[3] & 0x01 != 0
    }
}
