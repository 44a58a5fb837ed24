import Synchronization

/// What bluetoothd says about one device while a sensor uses it, from its signals: whether it is connected and its
/// services resolved, whether it went away and why, and the values of characteristics notified through
/// `PropertiesChanged` (the `StartNotify` fallback).
///
/// The signals come from the process's ``BlueZObjectCache`` (one tree and one set of matches for every watch on a
/// connection), which hands a watch only the events of its device, or, before it has one, of devices with its
/// address (``receive(_:)``, on the bus connection's queue); the session awaits ``changes`` between looks at
/// ``state``.
final class DeviceWatch: Sendable {
    struct State: Sendable {
        var devicePath: String?
        var connected = false
        var servicesResolved = false
        var removed = false
        /// The reason of bluetoothd's `Disconnected` signal (BlueZ 5.82 and later), as it words it.
        var disconnectReason: String?
        /// Set when a notification socket ended.
        var notificationsEnded: String?
        /// How many times bluetoothd said the device went away or disconnected (`Connected` false, its object
        /// removed, bluetoothd itself gone): a Connect's reply counts as connected only if none came meanwhile.
        var drops = 0
        /// bluetoothd left the bus (stopped, restarted or crashed: the bus's `NameOwnerChanged` for `org.bluez` with
        /// no new owner). Whatever it held is gone with it, and no signal of its own says so.
        var bluetoothdGone = false
    }

    /// What one of bluetoothd's signals means, as the cache hands it over (the cache has applied it to its tree).
    enum Event: Sendable {
        case added(path: String)
        case removed(path: String, interfaces: [String])
        case changed(path: String, interface: String, values: [String: DBusValue])
        case disconnected(path: String, reason: String)
        case bluetoothdGone
    }

    let state = Mutex(State())
    let changes: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let values = Mutex<[String: @Sendable ([UInt8]) -> Void]>([:])
    private let address: UInt64
    /// The device path followed, for the cache's dispatch (its own lock: the cache holds its lock while it asks).
    private let followed = Mutex<String?>(nil)

    init(address: UInt64) {
        self.address = address
        (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Whether an event is this watch's: bluetoothd leaving, or one about its device or one of its device's objects,
    /// or, before it follows a device, a device added with its `address`.
    func concerns(_ event: Event, address: UInt64?) -> Bool {
        let path: String
        switch event {
        case .bluetoothdGone: return true
        case .added(let added): path = added
        case .removed(let removed, _): path = removed
        case .changed(let changed, _, _): path = changed
        case .disconnected(let disconnected, _): path = disconnected
        }
        guard let device = followed.withLock({ $0 }) else { return address == self.address }
        return path == device || path.hasPrefix(device + "/")
    }

    /// Follows the device at `path` of `objects` from now on.
    func follow(_ path: String, in objects: BlueZObjects) {
        let device = objects.device(at: path)
        followed.withLock { $0 = path }
        state.withLock { state in
            state.devicePath = path
            state.connected = device?.isConnected ?? false
            state.servicesResolved = device?.servicesResolved ?? false
            state.removed = device == nil
            state.disconnectReason = nil
            state.notificationsEnded = nil
        }
        continuation.yield()
    }

    /// Delivers `PropertiesChanged` values of the characteristic at `path` to `deliver`.
    func onValue(at path: String, _ deliver: @escaping @Sendable ([UInt8]) -> Void) {
        values.withLock { $0[path] = deliver }
    }

    func notificationsEnded(_ reason: String) {
        state.withLock { if $0.notificationsEnded == nil { $0.notificationsEnded = reason } }
        continuation.yield()
    }

    func finish() { continuation.finish() }

    /// Takes one event of bluetoothd's (from the cache, on the bus connection's queue).
    func receive(_ event: Event) {
        var deliver: (@Sendable ([UInt8]) -> Void, [UInt8])?
        state.withLock { state in
            switch event {
            case .added(let path):
                // The device appeared (again), or, before the watch follows one, one with its address did.
                if state.devicePath == path || state.devicePath == nil { state.removed = false }
            case .removed(let path, let names):
                if path == state.devicePath, names.contains(BlueZ.device) {
                    state.removed = true
                    state.connected = false
                    state.drops += 1
                }
            case .changed(let path, let interface, let changed):
                if interface == BlueZ.device, path == state.devicePath {
                    if let connected = changed["Connected"]?.bool {
                        state.connected = connected
                        if !connected { state.drops += 1 }
                    }
                    if let resolved = changed["ServicesResolved"]?.bool {
                        state.servicesResolved = resolved
                        // Services resolve only over a link (bluetoothd 5.66 that lost track of an earlier link
                        // resolves them and never says Connected).
                        if resolved { state.connected = true }
                    }
                } else if interface == BlueZ.characteristic, let bytes = changed["Value"]?.byteArray,
                    let handler = values.withLock({ $0[path] })
                {
                    deliver = (handler, bytes)
                }
            case .bluetoothdGone:
                state.bluetoothdGone = true
                if state.connected { state.drops += 1 }
                state.connected = false
                state.servicesResolved = false
            case .disconnected(let path, let reason):
                if path == state.devicePath { state.disconnectReason = reason }
            }
        }
        if let (handler, bytes) = deliver { handler(bytes) }
        continuation.yield()
    }
}
