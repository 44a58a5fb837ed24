import BlueZTransport
import Synchronization

/// bluetoothd's objects as one process follows them: one `GetManagedObjects` tree and one pair of signal matches per
/// bus connection, however many sensors follow a device on it, each signal applied once and handed only to the
/// watches of the device it concerns (review D6b; bleak's `BlueZManager` does the same).
///
/// A ``DeviceWatch`` follows through ``follow(_:client:)`` and stops with ``Following/end()``; the cache is made by
/// the first follower of a connection and dropped with its last, its matches removed. When bluetoothd leaves the
/// bus the tree is dropped with it (whatever it described is gone) and the next ``objects(_:)`` loads the new
/// bluetoothd's.
final class BlueZObjectCache: Sendable {
    private struct State {
        var objects = BlueZObjects()
        /// Whether `objects` holds a `GetManagedObjects` reply of the bluetoothd now on the bus.
        var loaded = false
        var watches: [ObjectIdentifier: DeviceWatch] = [:]
        var matches: [BusConnection.Subscription] = []
        /// The matches being added (by the first watch); every watch waits for them before it looks.
        var ready: Task<Void, any Error>?
        /// The last watch left: matches added after it are removed at once.
        var dropped = false
    }

    private let state = Mutex(State())
    private let connection: BusConnection

    private init(connection: BusConnection) { self.connection = connection }

    /// The caches in use, by connection. An entry lives while a watch follows through it (so its connection does).
    private static let caches = Mutex<[ObjectIdentifier: BlueZObjectCache]>([:])

    /// The signals the cache follows: bluetoothd's own, and the bus's word that bluetoothd's name changed owner.
    static let rules = [
        "type='signal',sender='\(BlueZ.service)'",
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(BlueZ.service)'",
    ]

    /// A watch's registration; ``end()`` stops it (and drops the cache with its last watch).
    struct Following: Sendable {
        let cache: BlueZObjectCache
        let watch: DeviceWatch

        func end() { cache.unfollow(watch) }
    }

    /// Follows bluetoothd for `watch` on `client`'s connection; the connection's first watch adds the matches, and
    /// every watch waits until they are in place.
    static func follow(_ watch: DeviceWatch, client: BlueZClient) async throws(BlueZError) -> Following {
        let key = ObjectIdentifier(client.connection)
        // Registered under the registry's lock, so the last watch leaving cannot drop the cache in between.
        let cache = caches.withLock { caches in
            let cache = caches[key] ?? BlueZObjectCache(connection: client.connection)
            caches[key] = cache
            cache.state.withLock { state in
                state.watches[ObjectIdentifier(watch)] = watch
                if state.ready == nil { state.ready = Task { try await cache.addMatches() } }
            }
            return cache
        }
        do {
            try await cache.state.withLock { $0.ready }?.value
        } catch {
            cache.unfollow(watch)
            throw error as? BlueZError ?? BlueZError(.unexpectedReply, "\(error)")
        }
        return Following(cache: cache, watch: watch)
    }

    private func addMatches() async throws(BlueZError) {
        var matches: [BusConnection.Subscription] = []
        do throws(DBusError) {
            for rule in Self.rules {
                matches.append(try await connection.addMatch(rule) { [weak self] in self?.handle($0) })
            }
        } catch {
            for match in matches { match.cancel() }
            throw BlueZClient.sentence(for: error, calling: "AddMatch", at: "/")
        }
        let late = state.withLock { state -> Bool in
            if !state.dropped { state.matches = matches }
            return state.dropped
        }
        if late { for match in matches { match.cancel() } }
    }

    private func unfollow(_ watch: DeviceWatch) {
        let key = ObjectIdentifier(connection)
        // The registry's lock first, then the cache's: the order `follow` takes them in.
        let matches = Self.caches.withLock { caches -> [BusConnection.Subscription] in
            state.withLock { state in
                state.watches[ObjectIdentifier(watch)] = nil
                guard state.watches.isEmpty else { return [] }
                if caches[key] === self { caches[key] = nil }
                state.dropped = true
                defer { state.matches = [] }
                return state.matches
            }
        }
        for match in matches { match.cancel() }
        watch.finish()
    }

    /// The tree now: loaded with `GetManagedObjects` when the cache has none of this bluetoothd (the first use, or
    /// after bluetoothd came back), else what its signals keep up to date.
    func objects(_ client: BlueZClient) async throws(BlueZError) -> BlueZObjects {
        if let objects = state.withLock({ $0.loaded ? $0.objects : nil }) { return objects }
        let objects = try await client.managedObjects()
        // Signals that came between the matches and the reply were applied to the older tree; the reply is newer.
        state.withLock { state in
            state.objects = objects
            state.loaded = true
        }
        return objects
    }

    /// The tree as the signals left it (for conditions evaluated between them).
    var current: BlueZObjects { state.withLock(\.objects) }

    /// Applies one signal to the tree and hands what it means to the watches it concerns, outside the lock.
    private func handle(_ signal: BusConnection.Signal) {
        let (event, watches) = state.withLock { state -> (DeviceWatch.Event?, [DeviceWatch]) in
            guard let (event, address) = Self.event(of: signal, applyingTo: &state.objects) else { return (nil, []) }
            if case .bluetoothdGone = event { state.loaded = false }
            return (event, state.watches.values.filter { $0.concerns(event, address: address) })
        }
        guard let event else { return }
        for watch in watches { watch.receive(event) }
    }

    /// What one of bluetoothd's signals means, applied to `objects`, with the address of a device it added; nil for
    /// a signal of no concern or of the wrong shape (ignored: there is nobody to answer). Pure.
    static func event(
        of signal: BusConnection.Signal, applyingTo objects: inout BlueZObjects
    ) -> (event: DeviceWatch.Event, address: UInt64?)? {
        switch (signal.interface, signal.member) {
        case (BlueZ.objectManager, "InterfacesAdded"):
            guard let path = try? objects.interfacesAdded(signal.body) else { return nil }
            return (.added(path: path), objects.device(at: path)?.address?.rawValue)
        case (BlueZ.objectManager, "InterfacesRemoved"):
            guard let (path, names) = try? objects.interfacesRemoved(signal.body) else { return nil }
            return (.removed(path: path, interfaces: names), nil)
        case (BlueZ.properties, "PropertiesChanged"):
            guard let (interface, changed) = try? objects.propertiesChanged(at: signal.path, signal.body) else {
                return nil
            }
            return (.changed(path: signal.path, interface: interface, values: changed), nil)
        case ("org.freedesktop.DBus", "NameOwnerChanged"):
            // `NameOwnerChanged(s name, s old_owner, s new_owner)`, from the bus itself: with no new owner,
            // bluetoothd left, and whatever it described with it.
            let words = signal.body.compactMap(\.string)
            guard words.count == 3, words[0] == BlueZ.service, words[2].isEmpty else { return nil }
            objects = BlueZObjects()
            return (.bluetoothdGone, nil)
        case (BlueZ.device, "Disconnected"):
            // `Disconnected(s reason, s message)`: the reason's name and bluetoothd's own words.
            let words = signal.body.compactMap(\.string)
            guard words.count == 2 else { return nil }
            let reason = words[1].isEmpty ? words[0] : "\(words[1]) (\(words[0]))"
            return (.disconnected(path: signal.path, reason: reason), nil)
        default:
            return nil
        }
    }
}
