import BluetoothLE
import FitnessSensors
import Foundation

extension BLESensor {
    /// The characteristics a BLE sensor subscribes to, in the order it subscribes (``FitnessProfiles``).
    static let measurementCharacteristics: [UInt16] = FitnessProfiles.measurementCharacteristics

    /// Serves one connection until it ends; throws why it ended.
    func runSession<C: Clock>(
        over bearer: SocketBearer, clock: C, origin: C.Instant, continuity: inout Continuity
    ) async throws where C.Duration == Duration {
        let logger = self.logger
        let client = GATTClient(
            bearer: bearer,
            transactionTimeout: .init(duration: options.transactionTimeout, clock: clock),
            notificationDelivery: .handler,
            logHandler: { event in
                switch event {
                case .answeredPeerRequest, .ignoredCommand:
                    // Routine: bluetoothd on the sensor's side discovers our (empty) GATT server.
                    logger.debug("\(bearer.peer): \(event)")
                case .malformedPDU, .unexpectedPDU:
                    logger.warning("\(bearer.peer): \(event); skipped")
                }
            })
        // Read back once the group has ended, so every child (the client's run, and with it the receiver) is done.
        var sessionReceiver: NotificationReceiver<C>?
        defer { if let receiver = sessionReceiver { continuity = receiver.continuity } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await client.run() }
            defer { group.cancelAll() }
            let (subscribed, initialReads) = try await setUp(
                client, security: SecurityRetry(upgrade: bearer.securityUpgrade))
            continuity.backoff.reset()
            emit(.connection(.connected))
            controlLinkUp(client, handles: Dictionary(subscribed.map { ($1, $0) }, uniquingKeysWith: { $1 }))
            defer { control.down() }
            let receiver = NotificationReceiver(
                sensor: self, peer: bearer.peer, subscribed: subscribed,
                continuity: continuity, clock: clock, origin: origin)
            sessionReceiver = receiver
            for (uuid, bytes) in initialReads { receiver.deliverRead(uuid, bytes) }
            group.addTask {
                try await receiver.arrivals.reportSilences(on: clock) {
                    self.emit(.connection(.disconnected(reason: $0)))
                }
            }
            await client.deliverNotifications(to: receiver.received)
            // Notifications now reach the receiver on the client's executor; the session lasts until the bearer
            // closes: surface why.
            while try await group.next() != nil {}
        }
    }

    /// A connection's notifications, from the GATT client straight to the sensor's outlet: look up the
    /// characteristic, drop a re-delivered value, note the arrival, decode and interpret, emit.
    ///
    /// Not locked: after the session task hands it to ``GATTClient/deliverNotifications(to:)`` it is touched only
    /// on the client's executor, one notification at a time; the session task reads ``continuity`` back only
    /// once the client's `run()` has returned. So a reading takes two locks on its way to the builder: the
    /// sensor's outlet and the builder's own (``SensorOutlet``, the live builder).
    final class NotificationReceiver<C: Clock>: @unchecked Sendable where C.Duration == Duration {
        let arrivals: ArrivalWatch<C.Instant>
        private(set) var continuity: Continuity
        private let sensor: BLESensor
        private let peer: String
        private let subscribed: [UInt16: UInt16]
        private let clock: C
        private let origin: C.Instant

        init(
            sensor: BLESensor, peer: String, subscribed: [UInt16: UInt16], continuity: Continuity,
            clock: C, origin: C.Instant
        ) {
            self.sensor = sensor
            self.peer = peer
            self.subscribed = subscribed
            self.continuity = continuity
            self.clock = clock
            self.origin = origin
            arrivals = ArrivalWatch(connectedAt: clock.now, staleAfter: sensor.options.staleAfter)
        }

        /// A value read at connection (battery), delivered before any notification.
        func deliverRead(_ characteristic: UInt16, _ bytes: [UInt8]) {
            sensor.deliver(
                characteristic, bytes, at: clock.now.seconds(since: origin),
                interpreter: &continuity.interpreter)
        }

        @Sendable func received(_ notification: GATTNotification) {
            guard let uuid = subscribed[notification.handle] else {
                sensor.logger.warning(
                    "\(peer): notification for unsubscribed handle 0x\(String(notification.handle, radix: 16)); skipped"
                )
                return
            }
            if ControlLinkHub.characteristics.contains(uuid) { sensor.control.value(uuid, notification.value) }
            let now = clock.now
            let arrival = now.seconds(since: origin)
            // Answers to control requests are never re-deliveries, however alike (two targets accepted: `80 05 01`
            // twice); indications are confirmed, so a peer does not send one twice.
            let isAnswer = uuid == GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint
            if !isAnswer,
                continuity.deduplicator.isDuplicate(characteristic: uuid, bytes: notification.value, at: arrival)
            {
                sensor.logger.debug("\(peer): duplicate notification \(notification); dropped")
                return
            }
            if arrivals.arrived(at: now) { sensor.emit(.connection(.connected)) }
            sensor.deliver(uuid, notification.value, at: arrival, interpreter: &continuity.interpreter)
        }
    }

    /// Discovery, Device Information, battery and subscriptions. Returns the subscribed value
    /// handles with their characteristics, and values read that carry readings (battery).
    ///
    /// Device Information and battery are optional: a sensor that refuses them (protected, or
    /// not readable) is still recorded from. A refusal for want of security (0x05, 0x0F) raises
    /// the link's security once and retries (``SecurityRetry``); when raising it fails, the
    /// optional read is skipped. Only the measurement subscription is required.
    private func setUp(
        _ client: GATTClient, security: SecurityRetry
    ) async throws -> (subscribed: [UInt16: UInt16], reads: [(UInt16, [UInt8])]) {
        do { try await client.exchangeMTU() } catch let error as ATTErrorResponse {
            logger.info("\(identifier): MTU exchange refused (\(error)); staying at the default MTU")
        }
        var characteristics: [GATTCharacteristic] = []
        for service in try await client.discoverPrimaryServices() where Self.isRelevant(service.uuid) {
            characteristics += try await client.discoverCharacteristics(of: service)
        }
        var reads: [(UInt16, [UInt8])] = []
        var information = DeviceInformation()
        for characteristic in characteristics where characteristic.properties.contains(.read) {
            guard let uuid = characteristic.uuid.shortValue else { continue }
            let isBattery = uuid == GATTAssignedNumbers.Characteristic.batteryLevel
            let isProfileRead = FitnessProfiles.readCharacteristics.contains(uuid)
            guard isBattery || isProfileRead || DeviceInformationField(rawValue: uuid) != nil else { continue }
            let bytes: [UInt8]
            do {
                bytes = try await security.perform {
                    try await client.readLongValue(handle: characteristic.valueHandle)
                }
            } catch let error as ATTErrorResponse {
                logger.info(
                    "\(identifier): 0x\(String(uuid, radix: 16, uppercase: true)) could not be read (\(error)); skipped"
                )
                continue
            } catch let failure as SecurityUpgradeFailed where !Task.isCancelled {
                // Optional: a link that could not be secured for it still serves the measurements.
                logger.info(
                    "\(identifier): 0x\(String(uuid, radix: 16, uppercase: true)) needs a secured link, which failed (\(BLESensor.sentence(for: failure.underlying))); skipped"
                )
                continue
            }
            if isBattery || isProfileRead {
                reads.append((uuid, bytes))
            } else {
                do { _ = try information.update(characteristic: uuid, bytes: bytes) } catch {
                    logger.warning(
                        "\(identifier): device information 0x\(String(uuid, radix: 16)) is malformed (\(error)); skipped"
                    )
                }
            }
        }
        self.information.withLock { $0 = information }
        var subscribed: [UInt16: UInt16] = [:]
        let optional = FitnessProfiles.indicationCharacteristics + [GATTAssignedNumbers.Characteristic.batteryLevel]
        let wanted = Self.measurementCharacteristics + optional
        for characteristic in characteristics {
            guard let uuid = characteristic.uuid.shortValue, wanted.contains(uuid),
                !characteristic.properties.isDisjoint(with: [.notify, .indicate])
            else { continue }
            do {
                _ = try await security.perform { try await client.subscribe(to: characteristic) }
            } catch
                where optional.contains(uuid) && !Task.isCancelled
                && (error is ATTErrorResponse || error is SecurityUpgradeFailed
                    || (error as? GATTClientError)?.code == .notSubscribable)
            {
                logger.info(
                    "\(identifier): 0x\(String(uuid, radix: 16, uppercase: true)) notifications refused (\(error)); skipped"
                )
                continue
            } catch let failure as SecurityUpgradeFailed {
                throw failure.underlying  // a measurement is required: the session ends, saying why
            }
            subscribed[characteristic.valueHandle] = uuid
        }
        guard subscribed.values.contains(where: Self.measurementCharacteristics.contains) else {
            throw BlueZError(
                .connectionFailed,
                "\(name) offers no measurement to subscribe to (\(FitnessProfiles.measuringNames)).")
        }
        return (subscribed, reads)
    }

    /// Decodes a value and pushes its readings; a malformed value is logged and skipped. The tap hears the bytes
    /// (stamped when they arrived) once their readings have been delivered, so a tap that counts values knows that
    /// what it counted has reached the data source.
    fileprivate func deliver(
        _ characteristic: UInt16, _ bytes: [UInt8], at arrival: TimeInterval,
        interpreter: inout SensorReadingInterpreter
    ) {
        let arrivedAt = wallClock()
        defer { options.tap?.sensor(identifier, received: bytes, characteristic: characteristic, at: arrivedAt) }
        let readings: [SensorReadingValue]
        do { readings = try interpreter.readings(fromValue: bytes, of: characteristic, at: arrival) } catch {
            malformed.add(1, ordering: .relaxed)
            logger.warning(
                "\(identifier): malformed 0x\(String(characteristic, radix: 16, uppercase: true)) value [\(bytes.map { String(format: "%02X", $0) }.joined(separator: " "))]: \(error); skipped"
            )
            return
        }
        for reading in readings { emit(.reading(reading)) }
    }

    static func isRelevant(_ service: BluetoothUUID) -> Bool {
        guard let short = service.shortValue else { return false }
        return FitnessProfiles.isRelevant(service: short)
    }
}
