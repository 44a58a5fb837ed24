import CSystemd
import Dispatch
import Glibc
import Synchronization

/// A connection to a D-Bus bus through sd-bus, served on a queue of its own.
///
/// sd-bus is single-threaded: a bus and its messages belong to one thread. Here that is the connection's serial
/// queue, which runs one long loop: it carries out the work other threads hand it (``perform(_:)``), lets sd-bus
/// dispatch what arrived (replies, signals, method calls to exported objects), then waits in `poll()` on the
/// bus's descriptor and an `eventfd` that new work writes to. Swift tasks only ever enqueue and await a
/// continuation, so no call blocks the cooperative pool; a serial queue is overcommitting and gets a thread of
/// its own, as ``SocketDescriptor``'s waits do.
///
/// Every call carries a timeout sd-bus enforces, so every awaited reply ends. When the bus goes away (the
/// daemon stops, ``close()``), every pending call fails with ``DBusError/disconnected`` and later calls at once.
///
/// `@unchecked`: it holds sd-bus's C handle (`OpaquePointer`), used only on its serial queue; the rest is in `Mutex`es.
public final class BusConnection: @unchecked Sendable {
    private let bus: OpaquePointer
    private let wake: Int32
    private let queue = DispatchQueue(label: "org.openhealthkit.dbus")
    private let work = Mutex(Work())
    private let state = Mutex(State())
    /// Where this connection goes, for messages.
    public let description: String

    /// `@unchecked`: the slots' C handles, touched only under the lock and on the bus's queue.
    private struct State: @unchecked Sendable {
        var isClosed = false
        /// How many times the bus was torn down: once at most (a second `sd_bus_unref` would free it twice).
        var teardowns = 0
        var slots: [ObjectIdentifier: (slot: OpaquePointer, box: Unmanaged<HandlerBox>)] = [:]
    }

    /// Work handed to the loop, until the loop has ended; after that, work runs where it is handed over.
    private struct Work {
        var pending: [@Sendable () -> Void] = []
        var loopEnded = false
    }

    /// The system bus, where bluetoothd is: `$DBUS_SYSTEM_BUS_ADDRESS` when set (sd-bus honours it), else
    /// `/run/dbus/system_bus_socket`.
    public static func system() throws(DBusError) -> BusConnection {
        var bus: OpaquePointer?
        let result = sd_bus_open_system(&bus)
        guard result >= 0, let bus else { throw DBusError.system("The system bus could not be reached", -result) }
        return try BusConnection(bus: bus, description: "the system bus")
    }

    /// A bus at an address (`unix:path=/tmp/…`), as a client that says Hello: how tests reach a private daemon.
    public static func connect(address: String) throws(DBusError) -> BusConnection {
        var bus: OpaquePointer?
        var result = sd_bus_new(&bus)
        guard result >= 0, let bus else { throw DBusError.system("sd-bus could not make a connection", -result) }
        result = sd_bus_set_address(bus, address)
        if result >= 0 { result = sd_bus_set_bus_client(bus, 1) }
        if result >= 0 { result = sd_bus_start(bus) }
        guard result >= 0 else {
            sd_bus_unref(bus)
            throw DBusError.system("The bus at \(address) could not be reached", -result)
        }
        return try BusConnection(bus: bus, description: address)
    }

    private init(bus: OpaquePointer, description: String) throws(DBusError) {
        let wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wake >= 0 else {
            sd_bus_unref(bus)
            throw DBusError.system("An eventfd could not be made", errno)
        }
        self.bus = bus
        self.wake = wake
        self.description = description
        queue.async { self.run() }
    }

    deinit {
        Glibc.close(wake)
    }

    /// Whether the bus is gone (closed here, or lost).
    public var isClosed: Bool { state.withLock { $0.isClosed } }

    /// How many times the bus was torn down (for tests: never more than once).
    var teardowns: Int { state.withLock { $0.teardowns } }

    /// Closes the connection: pending calls fail with ``DBusError/disconnected``, handlers are released.
    public func close() {
        perform { self.shutDown() }
    }

    // MARK: - The loop

    /// Runs `body` on the connection's queue, with the bus to itself. Once the loop has ended (the bus is closed and
    /// freed), `body` runs at once on the calling thread: every body checks ``isClosed`` before it touches the bus,
    /// so a call made then fails with ``DBusError/disconnected`` instead of waiting for a loop that is gone.
    func perform(_ body: @escaping @Sendable () -> Void) {
        let queued = work.withLock { work in
            if work.loopEnded { return false }
            work.pending.append(body)
            return true
        }
        guard queued else { return body() }
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { Glibc.write(wake, $0.baseAddress, 8) }
    }

    /// The work handed over so far; with `end`, also marks the loop ended, so later work runs where it is handed over.
    private func takeWork(end: Bool = false) -> [@Sendable () -> Void] {
        work.withLock { work in
            defer { work.pending = [] }
            if end { work.loopEnded = true }
            return work.pending
        }
    }

    private func run() {
        let fd = sd_bus_get_fd(bus)
        while !isClosed {
            for body in takeWork() { body() }
            if isClosed { break }
            var processed: Int32
            repeat { processed = sd_bus_process(bus, nil) } while processed > 0 && !isClosed
            if processed < 0 {
                shutDown()
                break
            }
            var fds = [
                pollfd(fd: fd, events: Int16(truncatingIfNeeded: sd_bus_get_events(bus)), revents: 0),
                pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            var deadline: UInt64 = 0
            var timeout: Int32 = -1
            if sd_bus_get_timeout(bus, &deadline) > 0, deadline != UInt64.max {
                let now = CSystemd_monotonic_usec()
                timeout = deadline <= now ? 0 : Int32(clamping: (deadline - now + 999) / 1000)
            }
            _ = Glibc.poll(&fds, 2, timeout)
            if fds[1].revents != 0 {
                var count: UInt64 = 0
                _ = withUnsafeMutableBytes(of: &count) { Glibc.read(wake, $0.baseAddress, 8) }
            }
        }
        // Work that arrived after the close finds the connection closed (a second close() among it tears nothing
        // down again).
        for body in takeWork(end: true) { body() }
    }

    /// Ends the connection on its queue, once: sd-bus answers pending calls with an error while closing. A second
    /// call (a close() queued behind the loss of the bus, or a second close()) does nothing: tearing down again would
    /// unref the freed bus and close its descriptors a second time, numbers that may belong to someone else by then.
    private func shutDown() {
        let slots = state.withLock { state -> [(slot: OpaquePointer, box: Unmanaged<HandlerBox>)]? in
            if state.isClosed { return nil }
            state.isClosed = true
            defer { state.slots = [:] }
            return Array(state.slots.values)
        }
        guard let slots else { return }
        for (slot, box) in slots {
            sd_bus_slot_unref(slot)
            box.release()
        }
        state.withLock { $0.teardowns += 1 }
        sd_bus_close(bus)
        while sd_bus_process(bus, nil) > 0 {}
        sd_bus_unref(bus)
    }

    // MARK: - Calls

    /// Calls a method and returns the reply's body.
    ///
    /// Cancelling the calling task ends the wait, not the call: the message is sent all the same (a `Disconnect` or
    /// `StopNotify` asked for by a task being cancelled still reaches bluetoothd), the call throws
    /// ``DBusError/cancelled`` at once, and its reply, when it comes, is dropped.
    ///
    /// - Throws: ``DBusError`` with the name the other side replied with, `org.freedesktop.DBus.Error.NoReply` after
    ///   `timeout`, ``DBusError/disconnected``, or ``DBusError/cancelled``.
    public func call(
        _ destination: String, _ path: String, _ interface: String, _ member: String,
        _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25)
    ) async throws(DBusError) -> [DBusValue] {
        let usec = UInt64(
            max(1, timeout.components.seconds * 1_000_000 + timeout.components.attoseconds / 1_000_000_000_000))
        let answer = CallAnswer()
        let result: Result<[DBusValue], DBusError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                answer.wait(continuation)
                perform {
                    guard !self.isClosed else { return answer.give(.failure(.disconnected)) }
                    var message: OpaquePointer?
                    var created = sd_bus_message_new_method_call(
                        self.bus, &message, destination, path, interface, member)
                    guard created >= 0, let message else {
                        return answer.give(.failure(.system("A call of \(member) could not be made", -created)))
                    }
                    defer { sd_bus_message_unref(message) }
                    do throws(DBusError) {
                        for argument in arguments { try DBusMessageCoding.append(argument, to: message) }
                    } catch {
                        return answer.give(.failure(error))
                    }
                    let box = Unmanaged.passRetained(
                        HandlerBox { reply in
                            answer.give(Self.body(ofReply: reply))
                            return 1
                        })
                    created = sd_bus_call_async(self.bus, nil, message, handlerTrampoline, box.toOpaque(), usec)
                    if created < 0 {
                        box.release()
                        answer.give(
                            .failure(
                                created == -ENOTCONN || created == -ECONNRESET
                                    ? .disconnected : .system("\(interface).\(member) could not be sent", -created)))
                    }
                }
            }
        } onCancel: {
            answer.give(.failure(.cancelled))
        }
        return try result.get()
    }

    /// The body of a method return, or the error of an error reply.
    private static func body(ofReply reply: OpaquePointer) -> Result<[DBusValue], DBusError> {
        if sd_bus_message_is_method_error(reply, nil) > 0, let error = sd_bus_message_get_error(reply) {
            let name = error.pointee.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
            let text = error.pointee.message.map { String(cString: $0) } ?? ""
            if name == "org.freedesktop.DBus.Error.NoReply", text.contains("terminated") {
                return .failure(.disconnected)
            }
            return .failure(DBusError(name: name, message: text))
        }
        return Result { () throws(DBusError) in try DBusMessageCoding.readAll(reply) }
    }

    // MARK: - Signals and exported objects

    /// A signal as it arrived.
    public struct Signal: Sendable {
        public var sender: String?
        public var path: String
        public var interface: String
        public var member: String
        public var body: [DBusValue]
    }

    /// A method call made to an exported object, answered by its handler.
    public struct MethodCall: Sendable {
        public var sender: String?
        public var path: String
        public var interface: String
        public var member: String
        public var arguments: [DBusValue]
    }

    /// Registration of a handler; ``cancel()`` removes it (and so does closing the connection).
    public final class Subscription: Sendable {
        private let cancelBody: @Sendable () -> Void
        init(cancel: @escaping @Sendable () -> Void) { cancelBody = cancel }
        public func cancel() { cancelBody() }
    }

    /// Calls `handler` on the connection's queue for every signal matching `rule` (a D-Bus match rule, as in
    /// `type='signal',sender='org.bluez',path_namespace='/org/bluez/hci0'`). A signal whose body cannot be read
    /// is dropped (there is nobody to answer).
    public func addMatch(
        _ rule: String, handler: @escaping @Sendable (Signal) -> Void
    ) async throws(DBusError) -> Subscription {
        try await register(
            HandlerBox { message in
                guard let body = try? DBusMessageCoding.readAll(message) else { return 0 }
                handler(
                    Signal(
                        sender: sd_bus_message_get_sender(message).map { String(cString: $0) },
                        path: sd_bus_message_get_path(message).map { String(cString: $0) } ?? "",
                        interface: sd_bus_message_get_interface(message).map { String(cString: $0) } ?? "",
                        member: sd_bus_message_get_member(message).map { String(cString: $0) } ?? "",
                        body: body))
                return 0
            }
        ) { slot, box in sd_bus_add_match(self.bus, &slot, rule, handlerTrampoline, box) }
    }

    /// Exports an object at `path`: `handler` answers each method call made to it on the connection's queue, with
    /// the reply's body or an error.
    public func export(
        _ path: String, handler: @escaping @Sendable (MethodCall) -> Result<[DBusValue], DBusError>
    ) async throws(DBusError) -> Subscription {
        try await register(
            HandlerBox { message in
                guard sd_bus_message_is_method_call(message, nil, nil) > 0 else { return 0 }
                let call = MethodCall(
                    sender: sd_bus_message_get_sender(message).map { String(cString: $0) },
                    path: sd_bus_message_get_path(message).map { String(cString: $0) } ?? "",
                    interface: sd_bus_message_get_interface(message).map { String(cString: $0) } ?? "",
                    member: sd_bus_message_get_member(message).map { String(cString: $0) } ?? "",
                    arguments: (try? DBusMessageCoding.readAll(message)) ?? [])
                Self.reply(to: message, with: handler(call))
                return 1
            }
        ) { slot, box in sd_bus_add_object(self.bus, &slot, path, handlerTrampoline, box) }
    }

    private static func reply(to call: OpaquePointer, with result: Result<[DBusValue], DBusError>) {
        switch result {
        case .success(let values):
            var reply: OpaquePointer?
            guard sd_bus_message_new_method_return(call, &reply) >= 0, let reply else { return }
            defer { sd_bus_message_unref(reply) }
            do throws(DBusError) { for value in values { try DBusMessageCoding.append(value, to: reply) } } catch {
                return
            }
            _ = sd_bus_send(nil, reply, nil)
        case .failure(let failure):
            var error = CSystemd_error_null()
            failure.name.withCString { name in
                failure.message.withCString { text in
                    _ = sd_bus_error_set(&error, name, text)
                    _ = sd_bus_reply_method_error(call, &error)
                }
            }
            sd_bus_error_free(&error)
        }
    }

    private func register(
        _ handler: HandlerBox, _ add: @escaping @Sendable (inout OpaquePointer?, UnsafeMutableRawPointer) -> Int32
    ) async throws(DBusError) -> Subscription {
        let box = Unmanaged.passRetained(handler)
        let key = ObjectIdentifier(handler)
        let result: Result<Void, DBusError> = await withCheckedContinuation { continuation in
            perform {
                guard !self.isClosed else {
                    box.release()
                    return continuation.resume(returning: .failure(.disconnected))
                }
                var slot: OpaquePointer?
                let added = add(&slot, box.toOpaque())
                guard added >= 0, let slot else {
                    box.release()
                    return continuation.resume(
                        returning: .failure(.system("A handler could not be registered", -added)))
                }
                self.state.withLock { $0.slots[key] = (slot, box) }
                continuation.resume(returning: .success(()))
            }
        }
        try result.get()
        return Subscription { [weak self] in
            guard let connection = self else { return }
            connection.perform {
                guard let entry = connection.state.withLock({ $0.slots.removeValue(forKey: key) }) else { return }
                sd_bus_slot_unref(entry.slot)
                entry.box.release()
            }
        }
    }
}

/// What a call's caller waits for: the first of its reply (or failure) and its cancellation; the other is dropped.
private final class CallAnswer: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Result<[DBusValue], DBusError>, Never>?)
        case given(Result<[DBusValue], DBusError>?)
    }
    private let state = Mutex(State.waiting(nil))

    /// The caller's continuation; an answer given before it came is given to it at once.
    func wait(_ continuation: CheckedContinuation<Result<[DBusValue], DBusError>, Never>) {
        let early = state.withLock { state -> Result<[DBusValue], DBusError>? in
            switch state {
            case .waiting:
                state = .waiting(continuation)
                return nil
            case .given(let result):
                state = .given(nil)
                return result
            }
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Gives `result` to the caller, unless an answer was given already.
    func give(_ result: Result<[DBusValue], DBusError>) {
        let continuation = state.withLock { state -> CheckedContinuation<Result<[DBusValue], DBusError>, Never>? in
            guard case .waiting(let continuation) = state else { return nil }
            state = .given(continuation == nil ? result : nil)
            return continuation
        }
        continuation?.resume(returning: result)
    }
}

/// A Swift closure behind sd-bus's C callback (`userdata`).
///
/// `@unchecked`: its closure takes a C message handle and runs only on the bus's serial queue.
final class HandlerBox: @unchecked Sendable {
    let handle: (OpaquePointer) -> Int32
    init(_ handle: @escaping (OpaquePointer) -> Int32) { self.handle = handle }
}

/// sd-bus's callback for every handler: replies of calls (one shot: the box is released), signals and method
/// calls (the box lives with its slot).
private let handlerTrampoline: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    let box = Unmanaged<HandlerBox>.fromOpaque(userdata)
    // A reply to an async call is the only message of type 2 (method return) or 3 (error) a handler sees.
    var type: UInt8 = 0
    _ = sd_bus_message_get_type(message, &type)
    if type == 2 || type == 3 {
        let handler = box.takeRetainedValue()
        return handler.handle(message)
    }
    return box.takeUnretainedValue().handle(message)
}
