import BluetoothLE
import FitnessSensors
import Foundation

extension BLESensor {
    /// The characteristics a BLE sensor subscribes to, in the order it subscribes (``FitnessProfiles``).
    static let measurementCharacteristics: [UInt16] = FitnessProfiles.measurementCharacteristics

    /// Serves one connection until it ends; throws why it ended.
    func runSession<C: Clock>(over bearer: SocketBearer, _ link: SessionLink<C>) async throws
    where C.Duration == Duration {
        let logger = engine.logger
        let client = GATTClient(
            bearer: bearer,
            transactionTimeout: .init(duration: options.transactionTimeout, clock: link.clock),
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
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await client.run() }
            defer { group.cancelAll() }
            let security = SecurityRetry(upgrade: bearer.securityUpgrade)
            let characteristics = try await discover(client)
            try await readInformation(characteristics, client: client, security: security)
            let subscribed = try await subscribe(characteristics, client: client, security: security)
            let arrivals = link.watchArrivals()
            // Notifications reach the link on the client's executor, one at a time.
            await client.deliverNotifications(to: { notification in
                guard let uuid = subscribed[notification.handle] else {
                    logger.warning(
                        "\(bearer.peer): notification for unsubscribed handle 0x\(String(notification.handle, radix: 16)); skipped"
                    )
                    return
                }
                link.received(uuid, notification.value, arrivals: arrivals)
            })
            // Subscribed first: readings flow while the optional values are read, so a reconnection's gap in them
            // is the subscription's alone (Device Information, which the samples name, is read before, once; the
            // trainer's control waits for its range, read here). The sensor says it is connected once set up.
            let initialReads = try await readOptional(characteristics, client: client, security: security)
            link.connected()
            link.controlReads(initialReads)
            controlLinkUp(client, handles: Dictionary(subscribed.map { ($1, $0) }, uniquingKeysWith: { $1 }))
            defer { engine.control.down() }
            for (uuid, bytes) in initialReads { link.deliverRead(uuid, bytes) }
            group.addTask { try await link.reportSilences(arrivals) }
            // The session lasts until the bearer closes: surface why.
            while try await group.next() != nil {}
        }
    }

    /// A session is set up: its client can write `handles` (value handles by UUID, those subscribed to among them).
    private func controlLinkUp(_ client: GATTClient, handles: [UInt16: UInt16]) {
        let controlPoint = GATTAssignedNumbers.Characteristic.fitnessMachineControlPoint
        engine.control.up(controlPoint: handles[controlPoint] != nil) { [name] bytes, characteristic in
            guard let handle = handles[characteristic] else {
                throw BlueZError(
                    .connectionFailed,
                    "\(name) offers no characteristic 0x\(String(characteristic, radix: 16, uppercase: true)).")
            }
            try await client.writeValue(bytes, handle: handle)
        }
    }

    /// The MTU exchange and discovery: the characteristics of the fitness services (and battery, Device Information).
    private func discover(_ client: GATTClient) async throws -> [GATTCharacteristic] {
        do { try await client.exchangeMTU() } catch let error as ATTErrorResponse {
            engine.logger.info("\(identifier): MTU exchange refused (\(error)); staying at the default MTU")
        }
        var characteristics: [GATTCharacteristic] = []
        for service in try await client.discoverPrimaryServices() where Self.isRelevant(service.uuid) {
            characteristics += try await client.discoverCharacteristics(of: service)
        }
        return characteristics
    }

    /// The subscriptions: the subscribed value handles with their characteristics. Only a measurement's subscription
    /// is required; the rest is optional (refused for want of security, the link's security is raised once and the
    /// subscription retried: ``SecurityRetry``).
    private func subscribe(
        _ characteristics: [GATTCharacteristic], client: GATTClient, security: SecurityRetry
    ) async throws -> [UInt16: UInt16] {
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
                engine.logger.info(
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
        return subscribed
    }

    /// Device Information, at the first connection that offers it (it does not change between two): before the
    /// sensor says it is connected, since its samples name its maker and model from then on.
    private func readInformation(
        _ characteristics: [GATTCharacteristic], client: GATTClient, security: SecurityRetry
    ) async throws {
        guard engine.readsInformation else { return }
        var information = DeviceInformation()
        let isInformation = { (uuid: UInt16) in DeviceInformationField(rawValue: uuid) != nil }
        for (uuid, bytes) in try await readOptional(
            characteristics, client: client, security: security, where: isInformation)
        {
            do { _ = try information.update(characteristic: uuid, bytes: bytes) } catch {
                engine.logger.warning(
                    "\(identifier): device information 0x\(String(uuid, radix: 16)) is malformed (\(error)); skipped")
            }
        }
        engine.information.withLock { $0 = information }
    }

    /// Reads the readable characteristics `wanted` picks (by default the battery level and the profiles' reads:
    /// features, ranges) and returns their values.
    ///
    /// All optional: a sensor that refuses them (protected, or not readable) is still recorded from. A refusal for
    /// want of security (0x05, 0x0F) raises the link's security once and retries (``SecurityRetry``); when raising
    /// it fails, the read is skipped.
    private func readOptional(
        _ characteristics: [GATTCharacteristic], client: GATTClient, security: SecurityRetry,
        where wanted: (UInt16) -> Bool = {
            $0 == GATTAssignedNumbers.Characteristic.batteryLevel || FitnessProfiles.readCharacteristics.contains($0)
        }
    ) async throws -> [(UInt16, [UInt8])] {
        var reads: [(UInt16, [UInt8])] = []
        for characteristic in characteristics where characteristic.properties.contains(.read) {
            guard let uuid = characteristic.uuid.shortValue, wanted(uuid) else { continue }
            do {
                let handle = characteristic.valueHandle
                reads.append((uuid, try await security.perform { try await client.readLongValue(handle: handle) }))
            } catch let error as ATTErrorResponse {
                engine.logger.info(
                    "\(identifier): 0x\(String(uuid, radix: 16, uppercase: true)) could not be read (\(error)); skipped"
                )
            } catch let failure as SecurityUpgradeFailed where !Task.isCancelled {
                // Optional: a link that could not be secured for it still serves the measurements.
                engine.logger.info(
                    "\(identifier): 0x\(String(uuid, radix: 16, uppercase: true)) needs a secured link, which failed (\(BLESensor.sentence(for: failure.underlying))); skipped"
                )
            }
        }
        return reads
    }

    static func isRelevant(_ service: BluetoothUUID) -> Bool {
        guard let short = service.shortValue else { return false }
        return FitnessProfiles.isRelevant(service: short)
    }
}
