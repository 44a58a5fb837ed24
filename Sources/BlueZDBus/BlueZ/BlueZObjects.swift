/// What bluetoothd exports, as far as this program follows it: object path → interface → properties, kept up to
/// date from `GetManagedObjects`, `InterfacesAdded`, `InterfacesRemoved` and `PropertiesChanged`.
///
/// Pure: it takes message bodies (``DBusValue``s) in arrival order and throws ``BlueZReplyError`` for a body of
/// the wrong shape, leaving itself unchanged. Every view of an object (``BlueZDevice``, ``BlueZCharacteristic``)
/// is read from here.
///
/// BlueZ `doc/org.freedesktop.DBus.ObjectManager` usage in `doc/org.bluez.*.rst`; D-Bus Specification,
/// "org.freedesktop.DBus.ObjectManager" and "org.freedesktop.DBus.Properties".
public struct BlueZObjects: Sendable, Equatable {
    /// path → interface → property → value.
    public private(set) var objects: [String: [String: [String: DBusValue]]] = [:]

    public init() {}

    /// Replaces everything with a `GetManagedObjects` reply (`a{oa{sa{sv}}}`).
    public mutating func load(managedObjects body: [DBusValue]) throws(BlueZReplyError) {
        guard body.count == 1, let paths = body[0].stringKeyed else {
            throw BlueZReplyError(
                "GetManagedObjects replied with '\(body.map(\.signature).joined())', not 'a{oa{sa{sv}}}'")
        }
        var loaded: [String: [String: [String: DBusValue]]] = [:]
        for (path, interfaces) in paths { loaded[path] = try Self.interfaces(interfaces, of: path) }
        objects = loaded
    }

    /// Applies an `InterfacesAdded` signal (`oa{sa{sv}}`); returns the path.
    @discardableResult
    public mutating func interfacesAdded(_ body: [DBusValue]) throws(BlueZReplyError) -> String {
        guard body.count == 2, case .objectPath(let path) = body[0] else {
            throw BlueZReplyError("InterfacesAdded came with '\(body.map(\.signature).joined())', not 'oa{sa{sv}}'")
        }
        let added = try Self.interfaces(body[1], of: path)
        objects[path, default: [:]].merge(added) { _, new in new }
        return path
    }

    /// Applies an `InterfacesRemoved` signal (`oas`); returns the path and the interfaces removed.
    @discardableResult
    public mutating func interfacesRemoved(
        _ body: [DBusValue]
    ) throws(BlueZReplyError) -> (path: String, interfaces: [String]) {
        guard body.count == 2, case .objectPath(let path) = body[0], let names = body[1].stringArray else {
            throw BlueZReplyError("InterfacesRemoved came with '\(body.map(\.signature).joined())', not 'oas'")
        }
        for name in names { objects[path]?[name] = nil }
        if objects[path]?.isEmpty == true { objects[path] = nil }
        return (path, names)
    }

    /// Applies a `PropertiesChanged` signal (`sa{sv}as`) sent by `path`; returns the interface and what changed.
    @discardableResult
    public mutating func propertiesChanged(
        at path: String, _ body: [DBusValue]
    ) throws(BlueZReplyError) -> (interface: String, changed: [String: DBusValue]) {
        guard body.count == 3, case .string(let interface) = body[0], let changed = body[1].stringKeyed,
            let invalidated = body[2].stringArray
        else {
            throw BlueZReplyError("PropertiesChanged came with '\(body.map(\.signature).joined())', not 'sa{sv}as'")
        }
        let values = changed.mapValues(\.unwrapped)
        // A change to an object not (yet) known is kept only if the object is: bluetoothd announces objects first.
        if objects[path]?[interface] != nil {
            objects[path]?[interface]?.merge(values) { _, new in new }
            for name in invalidated { objects[path]?[interface]?[name] = nil }
        }
        return (interface, values)
    }

    /// The properties of one interface of one object.
    public func properties(_ path: String, _ interface: String) -> [String: DBusValue]? { objects[path]?[interface] }

    /// The paths that have `interface`, sorted.
    public func paths(with interface: String) -> [String] {
        objects.filter { $0.value[interface] != nil }.keys.sorted()
    }

    private static func interfaces(
        _ value: DBusValue, of path: String
    ) throws(BlueZReplyError) -> [String: [String: DBusValue]] {
        guard let interfaces = value.stringKeyed else {
            throw BlueZReplyError("the interfaces of \(path) came as '\(value.signature)', not 'a{sa{sv}}'")
        }
        var result: [String: [String: DBusValue]] = [:]
        for (name, properties) in interfaces {
            guard let properties = properties.stringKeyed else {
                throw BlueZReplyError(
                    "the properties of \(name) at \(path) came as '\(properties.signature)', not 'a{sv}'")
            }
            result[name] = properties.mapValues(\.unwrapped)
        }
        return result
    }
}
