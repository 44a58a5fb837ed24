import BluetoothLE
import Testing

/// One end of an in-memory bearer pair: what one end sends, the other receives, in order.
final class LoopbackBearer: ATTBearer {
    struct Closed: Error {}

    /// A FIFO of PDUs with one reader.
    actor Mailbox {
        private var buffer: [[UInt8]] = []
        private var reader: CheckedContinuation<[UInt8]?, Never>?
        private var isFinished = false

        func put(_ pdu: [UInt8]) -> Bool {
            guard !isFinished else { return false }
            if let reader {
                self.reader = nil
                reader.resume(returning: pdu)
            } else {
                buffer.append(pdu)
            }
            return true
        }

        func take() async -> [UInt8]? {
            if !buffer.isEmpty { return buffer.removeFirst() }
            if isFinished { return nil }
            return await withCheckedContinuation { reader = $0 }
        }

        func finish() {
            isFinished = true
            reader?.resume(returning: nil)
            reader = nil
        }
    }

    private let inbox: Mailbox
    private let outbox: Mailbox

    private init(inbox: Mailbox, outbox: Mailbox) {
        self.inbox = inbox
        self.outbox = outbox
    }

    static func pair() -> (LoopbackBearer, LoopbackBearer) {
        let a = Mailbox(), b = Mailbox()
        return (LoopbackBearer(inbox: a, outbox: b), LoopbackBearer(inbox: b, outbox: a))
    }

    func send(_ pdu: [UInt8]) async throws {
        guard await outbox.put(pdu) else { throw Closed() }
    }

    func receive() async throws -> [UInt8] {
        guard let pdu = await inbox.take() else { throw Closed() }
        return pdu
    }

    /// Closes both directions: each end's `receive()` throws once its buffer is drained.
    func close() async {
        await outbox.finish()
        await inbox.finish()
    }
}

/// A simulated peripheral: the pure GATTServer driven over one end of a loopback bearer.
actor SimulatedPeripheral {
    private var server: GATTServer
    private let bearer: LoopbackBearer

    init(database: GATTDatabase, bearer: LoopbackBearer, serverRxMTU: UInt16 = 23) {
        server = GATTServer(database: database, serverRxMTU: serverRxMTU)
        self.bearer = bearer
    }

    func run() async {
        while let request = try? await bearer.receive() {
            if let response = server.handle(request: request) { try? await bearer.send(response) }
        }
    }

    /// Sets a value and sends the resulting notification, if the client subscribed.
    @discardableResult
    func update(_ value: [UInt8], of uuid: BluetoothUUID) async throws -> Bool {
        guard let pdu = server.updateValue(value, of: uuid) else { return false }
        try await bearer.send(pdu)
        return true
    }

    func value(of uuid: BluetoothUUID) -> [UInt8]? { server.value(of: uuid) }
}

@Suite(.timeLimit(.minutes(1))) struct GATTClientServerTests {
    @Test func clientDiscoversSubscribesAndReceivesFromServer() async throws {
        let (clientEnd, peripheralEnd) = LoopbackBearer.pair()
        let peripheral = SimulatedPeripheral(database: heartRateStrapDatabase(), bearer: peripheralEnd)
        let log = LogRecorder()
        let client = GATTClient(bearer: clientEnd, logHandler: log.handler)

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await peripheral.run() }
            group.addTask { do { try await client.run() } catch is LoopbackBearer.Closed {} }

            #expect(try await client.exchangeMTU() == 23)
            let services = try await client.discoverPrimaryServices()
            #expect(services.map(\.uuid) == [.heartRate, .battery, .deviceInformation])

            var characteristics: [GATTCharacteristic] = []
            for service in services { characteristics += try await client.discoverCharacteristics(of: service) }
            #expect(
                characteristics.map(\.uuid) == [
                    .heartRateMeasurement, .bodySensorLocation, .heartRateControlPoint, .batteryLevel,
                    .manufacturerNameString,
                ])
            let measurement = try #require(characteristics.first { $0.uuid == .heartRateMeasurement })
            let location = try #require(characteristics.first { $0.uuid == .bodySensorLocation })
            let controlPoint = try #require(characteristics.first { $0.uuid == .heartRateControlPoint })
            let manufacturer = try #require(characteristics.first { $0.uuid == .manufacturerNameString })

            #expect(
                try await client.discoverDescriptors(of: measurement).map(\.uuid) == [
                    .clientCharacteristicConfiguration
                ])
            #expect(try await client.discoverDescriptors(of: location) == [])
            #expect(try await client.readValue(handle: location.valueHandle) == [0x01])
            #expect(try await client.readLongValue(handle: manufacturer.valueHandle) == Array("Polar Electro Oy".utf8))

            // the control point refuses anything but 0x01 with application error 0x80
            do {
                try await client.writeValue([0x02], handle: controlPoint.valueHandle)
                Issue.record("control point accepted 0x02")
            } catch ATTErrorCode(0x80) {}
            try await client.writeValue([0x01], handle: controlPoint.valueHandle)

            // nothing is sent before the subscription
            #expect(try await !peripheral.update([0x06, 0x3C], of: .heartRateMeasurement))
            try await client.subscribe(to: measurement)
            #expect(try await peripheral.update([0x16, 0x3C, 0x11, 0x04], of: .heartRateMeasurement))
            #expect(try await peripheral.update([0x06, 0x3D], of: .heartRateMeasurement))

            var iterator = client.notifications.makeAsyncIterator()
            #expect(
                await iterator.next()
                    == GATTNotification(handle: measurement.valueHandle, value: [0x16, 0x3C, 0x11, 0x04]))
            #expect(await iterator.next() == GATTNotification(handle: measurement.valueHandle, value: [0x06, 0x3D]))

            try await client.unsubscribe(from: measurement)
            #expect(try await !peripheral.update([0x06, 0x3E], of: .heartRateMeasurement))

            await clientEnd.close()
            try await group.waitForAll()
        }
        #expect(log.events == [])
    }
}
