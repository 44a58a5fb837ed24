import BlueZTransport
import BluetoothLE
import FitnessSensors
import Foundation
import Synchronization
import UnixSockets

extension DBusSensor: SensorSession {
    /// Serves one connection until bluetoothd reports it gone; returns the reason (or throws why it never came up).
    package func run<C: Clock>(_ link: SessionLink<C>) async throws -> String where C.Duration == Duration {
        let clock = link.clock
        let client = BlueZClient(connection: try bus())
        let located = try await locate(client: client, clock: clock)
        defer { located.end() }
        let (watch, devicePath) = (located.watch, located.path)

        // Whose link it is is decided once, when the sensor starts: one already up then is another program's (the
        // desktop's, `bluetoothctl connect`), and stays up when the sensor stops; one this sensor made is this
        // sensor's, and so is every reconnection after it, even one bluetoothd completes by itself (a Connect still
        // pending in bluetoothd when the link came back).
        let upAlready = watch.state.withLock(\.connected)
        if link.beganSession() { madeLink.withLock { $0 = !upAlready } }
        let connectedHere = madeLink.withLock { $0 }
        if !upAlready { try await connect(devicePath, client: client, watch: watch, clock: clock) }
        var subscriptions: [Subscription] = []
        do {
            try await waitForServices(watch, clock: clock)
            guard watch.state.withLock(\.connected) else {
                return try reason(watch, fallback: "The sensor disconnected while connecting.")
            }
            let objects = try await client.managedObjects()
            let characteristics = objects.characteristics(of: devicePath)
            await readInformation(characteristics, client: client)
            let arrivals = link.watchArrivals()
            let subscribed: Set<UInt16>
            (subscriptions, subscribed) = try await subscribe(
                characteristics, client: client, watch: watch, link: link, arrivals: arrivals)
            // Subscribed first: readings flow while the optional values are read, so a reconnection's gap in them
            // is the subscription's alone (Device Information, which the samples name, is read before, once; the
            // trainer's control waits for its range, read here). The sensor says it is connected once set up.
            let reads = await readOptional(objects, devicePath: devicePath, client: client)
            link.connected()
            link.controlReads(reads)
            controlLinkUp(characteristics, subscribed: subscribed, client: client)
            defer { engine.control.down() }
            for (uuid, bytes) in reads { link.deliverRead(uuid, bytes) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await self.waitFor(watch, clock: clock, within: nil, "the link to end") {
                        !$0.connected || $0.removed || $0.notificationsEnded != nil
                    }
                }
                group.addTask { try await link.reportSilences(arrivals) }
                defer { group.cancelAll() }
                try await group.next()
            }
            if watch.state.withLock({ $0.connected && !$0.removed }) {
                // A notification socket ended while the link still looks up: bluetoothd closes those sockets as a
                // link drops, possibly before its signals about the drop reach us. One call to it is a barrier
                // (a bus delivers one sender's messages in order): its reply comes after every signal it sent
                // first, so the reason below is bluetoothd's when it gave one.
                _ = try? await client.call(
                    devicePath, BlueZ.properties, "Get", [.string(BlueZ.device), .string("Connected")],
                    timeout: .seconds(5))
            }
        } catch {
            await release(subscriptions, client: client, devicePath: connectedHere ? devicePath : nil)
            throw error
        }
        await release(subscriptions, client: client, devicePath: nil)
        return try reason(watch, fallback: "bluetoothd reports the link to the sensor ended (it gives no reason).")
    }

    /// The device followed through bluetoothd's signals: its object path and what bluetoothd says of it.
    struct Located {
        let following: BlueZObjectCache.Following
        let path: String

        var watch: DeviceWatch { following.watch }

        /// Stops following it.
        func end() { following.end() }
    }

    /// What a link or an attempt that ended because bluetoothd left the bus says.
    static let bluetoothdStopped = BlueZError(
        .bluetoothUnavailable,
        "bluetoothd stopped (restarted, or its service was stopped); the sensor is connected again once it is back.")

    /// Follows bluetoothd's signals, then finds the device on the adapter (discovering it when bluetoothd has not
    /// seen it yet): what a session and pairing both start with. The caller ends the result.
    func locate<C: Clock>(client: BlueZClient, clock: C) async throws -> Located where C.Duration == Duration {
        let watch = DeviceWatch(address: address.rawValue)
        // The process's one tree and matches (BlueZObjectCache): loaded once, not once per sensor.
        let following = try await BlueZObjectCache.follow(watch, client: client)
        do {
            let objects = try await following.cache.objects(client)
            let adapter = try client.adapter(named: options.adapter, in: objects, avoiding: address)
            let path = try await find(in: objects, adapter: adapter, client: client, following: following, clock: clock)
            watch.follow(path, in: following.cache.current)
            return Located(following: following, path: path)
        } catch {
            following.end()
            throw error
        }
    }

    /// The sentence for a link that ended: bluetoothd's own reason where it sent one.
    private func reason(_ watch: DeviceWatch, fallback: String) throws -> String {
        let state = watch.state.withLock { $0 }
        if state.bluetoothdGone { return Self.bluetoothdStopped.message }
        if let reason = state.disconnectReason { return "bluetoothd reports the link ended: \(reason)." }
        if state.removed {
            return
                "bluetoothd no longer knows the sensor (it was removed, or its adapter went away: unplugged or reset)."
        }
        if state.connected, let ended = state.notificationsEnded { return ended }
        return fallback
    }

    /// The device's object path; when bluetoothd has not seen it yet, a discovery until it does.
    func find<C: Clock>(
        in objects: BlueZObjects, adapter: String, client: BlueZClient, following: BlueZObjectCache.Following,
        clock: C
    ) async throws -> String where C.Duration == Duration {
        if let device = objects.devices(under: adapter).first(where: { $0.matches(address) }) { return device.path }
        logger.info("\(identifier): bluetoothd has not seen the sensor yet; discovering")
        _ = try await client.call(
            adapter, BlueZ.adapter, "SetDiscoveryFilter",
            [.properties([("Transport", .string("le"))])])
        _ = try await client.call(adapter, BlueZ.adapter, "StartDiscovery")
        let heard: Result<BlueZDevice?, any Error>
        do {
            try await waitFor(
                following.watch, clock: clock, within: options.connectTimeout, "the sensor to advertise"
            ) { _ in
                following.cache.current.devices(under: adapter).contains { $0.matches(self.address) }
            }
            heard = .success(following.cache.current.devices(under: adapter).first { $0.matches(self.address) })
        } catch let error as BlueZError where error.code == .timedOut {
            heard = .success(nil)
        } catch {
            heard = .failure(error)  // stopped meanwhile: discovery is stopped all the same
        }
        // In a task of its own, so that a stopped session still waits for it.
        await Task { _ = try? await client.call(adapter, BlueZ.adapter, "StopDiscovery", timeout: .seconds(5)) }.value
        guard let found = try heard.get() else {
            throw BlueZError(
                .connectionFailed,
                "bluetoothd did not hear \(SensorAddress.bluetooth(address)) advertise; wake the sensor (wet a strap's contacts, spin the cranks) and check `workout scan`."
            )
        }
        return found.path
    }

    /// Waits until `condition` holds for what bluetoothd said, at most `limit` on the clock (nil: no limit).
    func waitFor<C: Clock>(
        _ watch: DeviceWatch, clock: C, within limit: Duration?, _ what: String,
        until condition: @escaping @Sendable (DeviceWatch.State) -> Bool
    ) async throws
    where C.Duration == Duration {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                if watch.state.withLock({ condition($0) }) { return true }
                for await _ in watch.changes where watch.state.withLock({ condition($0) }) { return true }
                return watch.state.withLock { condition($0) }
            }
            if let limit {
                group.addTask {
                    try await clock.sleep(for: limit)
                    return false
                }
            }
            defer { group.cancelAll() }
            guard try await group.next() == true else {
                throw BlueZError(
                    .timedOut,
                    "Waiting for \(what) took longer than \(limit.map { "\($0.components.seconds) s" } ?? "allowed").")
            }
        }
    }

    /// Reads Device Information, at the first connection that offers it (it does not change between two): before the
    /// sensor says it is connected, since its samples name its maker and model from then on. Optional: a read that
    /// fails is logged and skipped.
    private func readInformation(_ characteristics: [BlueZCharacteristic], client: BlueZClient) async {
        guard engine.readsInformation else { return }
        let information = await client.deviceInformation(characteristics) { uuid, error in
            logger.info(
                "\(identifier): device information 0x\(String(uuid, radix: 16, uppercase: true)) could not be read (\(error)); skipped"
            )
        }
        engine.information.withLock { $0 = information }
    }

    /// Reads what is read at each connection: the battery level (`Battery1`, bluetoothd's battery plugin, else the
    /// GATT characteristic) and the profiles' reads (``FitnessProfiles/readCharacteristics``: features, ranges). All
    /// optional: a read that fails (refused, or needing security the link cannot get) is logged and skipped. Returns
    /// the values for the interpreter.
    private func readOptional(
        _ objects: BlueZObjects, devicePath: String, client: BlueZClient
    ) async -> [(UInt16, [UInt8])] {
        let battery = GATTAssignedNumbers.Characteristic.batteryLevel
        var reads: [(UInt16, [UInt8])] = []
        let percentage = objects.properties(devicePath, BlueZ.battery)?["Percentage"]?.integer
        if let percentage, let level = UInt8(exactly: percentage) { reads.append((battery, [level])) }
        for characteristic in objects.characteristics(of: devicePath) where characteristic.canRead {
            guard let uuid = characteristic.uuid.shortValue else { continue }
            let isProfileRead = FitnessProfiles.readCharacteristics.contains(uuid)
            let isBattery = uuid == battery && percentage == nil
            guard isBattery || isProfileRead else { continue }
            do {
                reads.append((uuid, try await client.readValue(characteristic.path)))
            } catch {
                logger.info(
                    "\(identifier): 0x\(String(uuid, radix: 16, uppercase: true)) could not be read (\(error)); skipped"
                )
            }
        }
        return reads
    }

    /// How one characteristic's notifications arrive.
    enum Subscription {
        /// `AcquireNotify`'s socket, read on its own queue.
        case socket(Task<Void, Never>)
        /// `StartNotify`: values come as `PropertiesChanged`; `StopNotify` at the end.
        case properties(path: String)
    }

    /// Subscribes to the measurements (at least one is required) and, when offered, to the profiles' status and
    /// control point indications and to the battery level (optional: a refusal is logged and skipped), as the raw
    /// path does (``FitnessProfiles``).
    private func subscribe<C: Clock>(
        _ characteristics: [BlueZCharacteristic], client: BlueZClient, watch: DeviceWatch, link: SessionLink<C>,
        arrivals: ArrivalWatch<C.Instant>
    ) async throws -> (subscriptions: [Subscription], subscribed: Set<UInt16>) where C.Duration == Duration {
        let measurements = FitnessProfiles.measurementCharacteristics
        let optional = FitnessProfiles.indicationCharacteristics + [GATTAssignedNumbers.Characteristic.batteryLevel]
        var subscriptions: [Subscription] = []
        var subscribed: Set<UInt16> = []
        var measuring = false
        do {
            for uuid in measurements + optional {
                for characteristic in characteristics
                where characteristic.uuid.shortValue == uuid && characteristic.canNotify {
                    do {
                        subscriptions.append(
                            try await subscribe(
                                characteristic, uuid: uuid, client: client, watch: watch, link: link,
                                arrivals: arrivals))
                        subscribed.insert(uuid)
                        if measurements.contains(uuid) { measuring = true }
                    } catch let error as BlueZError where optional.contains(uuid) && error.code != .closed {
                        logger.info(
                            "\(identifier): 0x\(String(uuid, radix: 16, uppercase: true)) notifications refused (\(error.message)); skipped"
                        )
                    }
                }
            }
            guard measuring else {
                throw BlueZError(
                    .connectionFailed,
                    "\(name) offers no measurement to subscribe to (\(FitnessProfiles.measuringNames)).")
            }
        } catch {
            await release(subscriptions, client: client, devicePath: nil)
            throw error
        }
        return (subscriptions, subscribed)
    }

    /// One characteristic: `AcquireNotify` (values as datagrams on a socket), else `StartNotify` (values as
    /// `PropertiesChanged`) where bluetoothd does not offer it (an indicating characteristic, an older version).
    private func subscribe<C: Clock>(
        _ characteristic: BlueZCharacteristic, uuid: UInt16, client: BlueZClient, watch: DeviceWatch,
        link: SessionLink<C>, arrivals: ArrivalWatch<C.Instant>
    ) async throws -> Subscription where C.Duration == Duration {
        let received: @Sendable ([UInt8]) -> Void = { bytes in link.received(uuid, bytes, arrivals: arrivals) }
        let hex = "0x" + String(uuid, radix: 16, uppercase: true)
        // bluetoothd refuses AcquireNotify where a characteristic only indicates (a control point; src/gatt-client.c
        // asks for the notify property): not asked there.
        if characteristic.flags.contains("notify") {
            do {
                return try await acquireNotify(characteristic, hex: hex, watch: watch, client: client, received)
            } catch let error as BlueZError where error.code != .unexpectedReply && error.code != .closed {
                logger.info("\(identifier): AcquireNotify of \(hex) refused (\(error.message)); using StartNotify")
            }
        }
        watch.onValue(at: characteristic.path, received)
        _ = try await client.call(characteristic.path, BlueZ.characteristic, "StartNotify")
        return .properties(path: characteristic.path)
    }

    /// `AcquireNotify`: a task reading the socket bluetoothd hands over, each datagram one value for `received`.
    private func acquireNotify(
        _ characteristic: BlueZCharacteristic, hex: String, watch: DeviceWatch, client: BlueZClient,
        _ received: @escaping @Sendable ([UInt8]) -> Void
    ) async throws -> Subscription {
        let reply = try await client.call(
            characteristic.path, BlueZ.characteristic, "AcquireNotify", [.properties([])])
        guard reply.count == 2, case .unixFD(let descriptor) = reply[0], case .uint16 = reply[1] else {
            throw BlueZError(
                .unexpectedReply,
                "bluetoothd sent an unexpected reply to AcquireNotify: '\(reply.map(\.signature).joined())', not 'hq'."
            )
        }
        let socket: SocketDescriptor
        do { socket = try SocketDescriptor(taking: descriptor.take()) } catch {
            throw BlueZError(.system, "The notification socket of \(hex) could not be used: \(error).")
        }
        return .socket(
            Task {
                do {
                    while true { received(try await socket.nextMessage()) }
                } catch {
                    if !Task.isCancelled {
                        watch.notificationsEnded("bluetoothd closed the notification socket of \(hex).")
                    }
                }
                socket.shutdown()
            })
    }

    /// Asks bluetoothd to connect the device and returns once the link is up.
    ///
    /// - An attempt bluetoothd is already carrying out (`InProgress`: an earlier Connect of ours it has not given up,
    ///   or another program's) is waited on within the same limit, not reported.
    /// - bluetoothd goes on connecting after a Connect that timed out or was abandoned (the kernel keeps an LE
    ///   connection attempt pending 20–40 s, and holds the sensor once it answers): on any failure, and when the
    ///   session is stopped meanwhile, a `Disconnect` cancels the attempt (bleak does the same).
    /// - A sensor that does not answer gets a sentence about the sensor, not about bluetoothd.
    func connect<C: Clock>(
        _ devicePath: String, client: BlueZClient, watch: DeviceWatch, clock: C
    ) async throws where C.Duration == Duration {
        let limit = options.connectTimeout
        let name = "\(SensorAddress.bluetooth(address))"
        let drops = watch.state.withLock(\.drops)
        do {
            do throws(DBusError) {
                _ = try await client.connection.call(
                    BlueZ.service, devicePath, BlueZ.device, "Connect", timeout: limit)
                // Connect answers once the link is up, so the device is connected unless bluetoothd said it dropped
                // meanwhile. Not waiting for its `Connected` signal: bluetoothd 5.66, having lost track of an
                // earlier link to the device, answers Connect and resolves the services without ever sending it.
                watch.state.withLock { if $0.drops == drops { $0.connected = true } }
            } catch  where error.is("org.bluez.Error.InProgress") {
                do {
                    try await waitFor(watch, clock: clock, within: limit, "the connection under way") {
                        $0.connected || $0.bluetoothdGone
                    }
                } catch let error as BlueZError where error.code == .timedOut {
                    throw Self.silent(name, within: limit)
                }
                if watch.state.withLock(\.bluetoothdGone) { throw Self.bluetoothdStopped }
            } catch {
                // The bus answers a call whose recipient left with NoReply, which would otherwise read as a silent
                // sensor.
                if watch.state.withLock(\.bluetoothdGone) { throw Self.bluetoothdStopped }
                throw Self.connectFailure(error, name, within: limit, at: devicePath)
            }
        } catch {
            await release([], client: client, devicePath: devicePath)
            throw error
        }
    }

    /// Waits until bluetoothd has resolved the connected device's services, or the link went down meanwhile.
    func waitForServices<C: Clock>(_ watch: DeviceWatch, clock: C) async throws where C.Duration == Duration {
        let limit = options.servicesTimeout
        do {
            try await waitFor(watch, clock: clock, within: limit, "bluetoothd to resolve the sensor's services") {
                $0.servicesResolved || !$0.connected
            }
        } catch let error as BlueZError where error.code == .timedOut {
            // The usual causes: bluetoothd waiting for a pairing dialog nobody sees, or a slow sensor.
            throw BlueZError(
                .timedOut,
                "bluetoothd did not resolve the services of \(SensorAddress.bluetooth(address)) within \(limit.components.seconds) s; a desktop's pairing dialog may be waiting for an answer (`workout pair` bonds without one)."
            )
        }
    }

    /// The sentence for a Connect bluetoothd refused or did not finish: what it means for the sensor, and what to do.
    static func connectFailure(
        _ error: DBusError, _ name: String, within limit: Duration, at path: String
    ) -> BlueZError {
        switch (error.name, error.message) {
        case ("org.freedesktop.DBus.Error.NoReply", _), ("org.freedesktop.DBus.Error.Timeout", _):
            // bluetoothd waits for the kernel's LE connection attempt, which waits for the sensor.
            return silent(name, within: limit)
        case ("org.bluez.Error.Failed", "le-connection-abort-by-local"):
            // bluetoothd's word for every LE connection attempt the kernel gave up (device.c, att_connect_cb).
            return BlueZError(
                .linkLost,
                "\(name) did not answer the connection attempt (le-connection-abort-by-local); wake it or bring it closer."
            )
        case ("org.bluez.Error.Failed", "br-connection-canceled"):
            return BlueZError(.linkLost, "The link to \(name) dropped while it was being connected.")
        default:
            return BlueZClient.sentence(for: error, calling: "Connect", at: path)
        }
    }

    /// The sentence for a sensor that did not connect within `limit`.
    static func silent(_ name: String, within limit: Duration) -> BlueZError {
        BlueZError(
            .timedOut,
            "\(name) did not connect within \(limit.components.seconds) s; wake it (wet a strap's contacts, turn the cranks) or bring it closer."
        )
    }

    /// Ends the subscriptions (closing an acquired socket releases it in bluetoothd) and, when given, disconnects; in
    /// a task of its own, so that a stopped session still waits for bluetoothd's answers (each within 5 s).
    private func release(_ subscriptions: [Subscription], client: BlueZClient, devicePath: String?) async {
        await Task { await releaseNow(subscriptions, client: client, devicePath: devicePath) }.value
    }

    private func releaseNow(_ subscriptions: [Subscription], client: BlueZClient, devicePath: String?) async {
        for subscription in subscriptions {
            switch subscription {
            case .socket(let reader):
                reader.cancel()
                await reader.value
            case .properties(let path):
                _ = try? await client.call(path, BlueZ.characteristic, "StopNotify", timeout: .seconds(5))
            }
        }
        if let devicePath {
            _ = try? await client.call(devicePath, BlueZ.device, "Disconnect", timeout: .seconds(5))
        }
    }

}
