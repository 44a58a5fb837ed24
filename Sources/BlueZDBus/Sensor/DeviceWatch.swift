import Synchronization

/// What bluetoothd says about one device while a sensor uses it, from its signals: whether it is connected and its
/// services resolved, whether it went away and why, and the values of characteristics notified through
/// `PropertiesChanged` (the `StartNotify` fallback).
///
/// Signals arrive on the bus connection's queue (``handle(_:)``); the session awaits ``changes`` between looks at
/// ``state``.
final class DeviceWatch: Sendable {
    struct State: Sendable {
        var objects: BlueZObjects
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

    let state: Mutex<State>
    let changes: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let values = Mutex<[String: @Sendable ([UInt8]) -> Void]>([:])
    private let address: UInt64

    init(objects: BlueZObjects, address: UInt64) {
        state = Mutex(State(objects: objects))
        self.address = address
        (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Follows the device at `path` from now on.
    func follow(_ path: String) {
        state.withLock { state in
            state.devicePath = path
            let device = state.objects.device(at: path)
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

    /// Takes one of bluetoothd's signals. A signal of the wrong shape is ignored: there is nobody to answer.
    func handle(_ signal: BusConnection.Signal) {
        var deliver: (@Sendable ([UInt8]) -> Void, [UInt8])?
        state.withLock { state in
            switch (signal.interface, signal.member) {
            case (BlueZ.objectManager, "InterfacesAdded"):
                guard let path = try? state.objects.interfacesAdded(signal.body) else { return }
                if state.devicePath == path
                    || (state.devicePath == nil && state.objects.device(at: path)?.address?.rawValue == address)
                {
                    state.removed = false
                }
            case (BlueZ.objectManager, "InterfacesRemoved"):
                guard let (path, names) = try? state.objects.interfacesRemoved(signal.body) else { return }
                if path == state.devicePath, names.contains(BlueZ.device) {
                    state.removed = true
                    state.connected = false
                    state.drops += 1
                }
            case (BlueZ.properties, "PropertiesChanged"):
                guard let (interface, changed) = try? state.objects.propertiesChanged(at: signal.path, signal.body)
                else { return }
                if interface == BlueZ.device, signal.path == state.devicePath {
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
                    let handler = values.withLock({ $0[signal.path] })
                {
                    deliver = (handler, bytes)
                }
            case ("org.freedesktop.DBus", "NameOwnerChanged"):
                // `NameOwnerChanged(s name, s old_owner, s new_owner)`, from the bus itself.
                let words = signal.body.compactMap(\.string)
                guard words.count == 3, words[0] == BlueZ.service, words[2].isEmpty else { return }
                state.bluetoothdGone = true
                if state.connected { state.drops += 1 }
                state.connected = false
                state.servicesResolved = false
            case (BlueZ.device, "Disconnected") where signal.path == state.devicePath:
                // `Disconnected(s reason, s message)`: the reason's name and bluetoothd's own words.
                let words = signal.body.compactMap(\.string)
                if words.count == 2 {
                    state.disconnectReason = words[1].isEmpty ? words[0] : "\(words[1]) (\(words[0]))"
                }
            default:
                return
            }
        }
        if let (handler, bytes) = deliver { handler(bytes) }
        continuation.yield()
    }
}
