import ByteCoding

/// A GATT client over one ATT bearer: MTU exchange, discovery, reads, writes and subscriptions,
/// with notifications delivered as an `AsyncStream`, or straight to a handler (``NotificationDelivery``).
///
/// The client does its reading in ``run()``, which must be running (in a task or a service group)
/// for any request to complete, and which returns or throws when the bearer closes. Requests are
/// serialised: one is outstanding at a time, the rest wait in order. Everything that is not an
/// answer to the outstanding request — notifications, indications, the peer's own requests,
/// malformed PDUs — is handled by ``GATTClientStateMachine`` as the specification requires.
///
/// ```swift
/// let client = GATTClient(bearer: bearer)
/// async let running: Void = client.run()
/// _ = try await client.exchangeMTU()
/// let services = try await client.discoverPrimaryServices()
/// ```
///
/// A request unanswered for the transaction timeout (30 s in the specification) fails the bearer:
/// pass a ``TransactionTimeout`` with an injected clock to enforce it. Without one, the client
/// never reads a clock and relies on the transport to notice a dead link.
///
/// Core 5.3 Vol 3 Part G §4 (GATT feature procedures) and Part F §3.3.3 (transaction timeout).
public actor GATTClient {
    /// How long a request may wait for its response, measured on an injected clock.
    ///
    /// When it expires the transaction has failed, and Core 5.3 Vol 3 Part F §3.3.3 forbids any
    /// further PDU on the bearer: the client closes, failing every waiting request with
    /// ``GATTClientError/Code/transactionTimeout``. The owner should then close the transport.
    public struct TransactionTimeout: Sendable {
        public var duration: Duration
        public var clock: any Clock<Duration>

        public init(duration: Duration = .seconds(30), clock: any Clock<Duration>) {
            self.duration = duration
            self.clock = clock
        }
    }

    /// How notifications and indications leave the client.
    public enum NotificationDelivery: Sendable {
        /// Through ``notifications``, an `AsyncStream` (two lock acquisitions per notification: the
        /// stream's buffer is shared by the reading and the consuming tasks).
        case stream
        /// To the handler given to ``deliverNotifications(to:)``, called on the client's executor in
        /// arrival order, with no lock and no hop. Notifications that arrive before a handler is set
        /// are held (up to the buffer limit, oldest dropped) and handed to it first. ``notifications``
        /// finishes at once.
        case handler
    }

    /// Notifications and indications, in arrival order, for as long as the bearer is open (with
    /// ``NotificationDelivery/stream``).
    public nonisolated let notifications: AsyncStream<GATTNotification>

    private let bearer: any ATTBearer
    private let logHandler: @Sendable (GATTClientLogEvent) -> Void
    private let notificationSink: AsyncStream<GATTNotification>.Continuation
    private var machine: GATTClientStateMachine
    private let delivery: NotificationDelivery
    private let notificationBufferLimit: Int
    private var notificationHandler: (@Sendable (GATTNotification) -> Void)?
    private var heldNotifications: [GATTNotification] = []

    private enum ResponseSlot {
        case idle
        case waiting(CheckedContinuation<[UInt8], any Error>)
        case arrived(Result<[UInt8], any Error>)
    }

    private var slot = ResponseSlot.idle
    private var isRequestInFlight = false
    private var queuedRequests: [CheckedContinuation<Void, any Error>] = []
    private var closedError: GATTClientError?
    private let transactionTimeout: TransactionTimeout?
    private var requestSerial: UInt64 = 0

    /// Creates a client; nothing is sent until a procedure is called.
    ///
    /// - Parameters:
    ///   - bearer: the ATT bearer; the client becomes its only reader.
    ///   - clientRxMTU: the MTU announced in ``exchangeMTU()`` and to a peer's exchange.
    ///   - notificationBufferLimit: how many undelivered notifications to keep; the oldest are
    ///     dropped past it.
    ///   - transactionTimeout: the response deadline and its clock; `nil` waits indefinitely.
    ///   - notificationDelivery: through the ``notifications`` stream, or straight to a handler.
    ///   - logHandler: receives malformed and unexpected PDUs and answered peer requests.
    public init(
        bearer: some ATTBearer,
        clientRxMTU: UInt16 = ATTMTU.maximum,
        notificationBufferLimit: Int = 4096,
        transactionTimeout: TransactionTimeout? = nil,
        notificationDelivery: NotificationDelivery = .stream,
        logHandler: @escaping @Sendable (GATTClientLogEvent) -> Void = { _ in }
    ) {
        self.bearer = bearer
        self.transactionTimeout = transactionTimeout
        self.logHandler = logHandler
        self.delivery = notificationDelivery
        self.notificationBufferLimit = max(notificationBufferLimit, 1)
        machine = GATTClientStateMachine(clientRxMTU: clientRxMTU)
        (notifications, notificationSink) = AsyncStream.makeStream(
            of: GATTNotification.self, bufferingPolicy: .bufferingNewest(notificationBufferLimit))
        if notificationDelivery == .handler { notificationSink.finish() }
    }

    /// Hands every notification and indication to `handler` from now on, first those held since
    /// the client was created (with ``NotificationDelivery/handler``; with `.stream` it does nothing).
    ///
    /// The handler runs on the client's executor, one notification at a time, in arrival order: it
    /// must not block, and it must not call back into the client.
    public func deliverNotifications(to handler: @escaping @Sendable (GATTNotification) -> Void) {
        guard delivery == .handler else { return }
        let held = heldNotifications
        heldNotifications = []
        for notification in held { handler(notification) }
        notificationHandler = handler
    }

    /// The bearer's current ATT_MTU.
    public var mtu: UInt16 { machine.mtu }

    var machineClientRxMTU: UInt16 { machine.clientRxMTU }

    /// Whether a request is waiting for its response.
    public var isBusy: Bool { machine.outstandingRequest != nil }

    // MARK: - Reading the bearer

    /// Reads the bearer until it closes, dispatching every PDU.
    ///
    /// When the bearer throws (closed, cancelled, failed), every waiting request fails with
    /// ``GATTClientError/Code/bearerClosed``, the notification stream finishes, and the bearer's
    /// error is rethrown.
    public func run() async throws {
        do {
            while true {
                let pdu = try await bearer.receive()
                if let closedError { throw closedError }
                try await handle(pdu)
            }
        } catch {
            close(GATTClientError(.bearerClosed, "the ATT bearer closed", underlying: error))
            throw error
        }
    }

    private func handle(_ pdu: [UInt8]) async throws {
        for action in machine.received(pdu) {
            switch action {
            case .send(let bytes):
                try await bearer.send(bytes)
            case .deliver(let notification):
                deliver(notification)
            case .completeRequest(let bytes):
                fulfil(.success(bytes))
            case .failRequest(let error):
                fulfil(.failure(error))
            case .failRequestWithMalformedResponse(let error):
                fulfil(
                    .failure(
                        GATTClientError(.malformedResponse, "the response could not be decoded", underlying: error)))
            case .log(let event):
                logHandler(event)
            }
        }
    }

    private func deliver(_ notification: GATTNotification) {
        switch delivery {
        case .stream:
            notificationSink.yield(notification)
        case .handler:
            if let notificationHandler {
                notificationHandler(notification)
            } else {
                if heldNotifications.count == notificationBufferLimit { heldNotifications.removeFirst() }
                heldNotifications.append(notification)
            }
        }
    }

    private func fulfil(_ result: Result<[UInt8], any Error>) {
        if case .waiting(let continuation) = slot {
            slot = .idle
            continuation.resume(with: result)
        } else {
            slot = .arrived(result)
        }
    }

    private func close(_ error: GATTClientError) {
        guard closedError == nil else { return }
        closedError = error
        notificationSink.finish()
        if case .waiting(let continuation) = slot { continuation.resume(throwing: error) }
        slot = .idle
        let queued = queuedRequests
        queuedRequests = []
        for continuation in queued { continuation.resume(throwing: error) }
    }

    // MARK: - Requests

    /// Sends one request and returns the raw response, throwing an ``ATTErrorResponse`` if the
    /// server answered with one.
    ///
    /// Use it for requests this client has no procedure for (Find By Type Value, for example).
    /// Cancelling the calling task does not abandon the transaction: ATT allows no other request
    /// until the response arrives, so the call returns when it does, when the transaction timeout
    /// expires, or when the bearer closes.
    public func request(_ pdu: some ATTProtocolDataUnit) async throws -> [UInt8] {
        try await acquireRequestSlot()
        defer { releaseRequestSlot() }
        if let closedError { throw closedError }
        let bytes = pdu.encode()
        guard machine.requestWillBeSent(bytes) else {
            throw GATTClientError(.notARequest, "\(type(of: pdu)) is not an ATT request that expects a response")
        }
        slot = .idle
        do {
            try await bearer.send(bytes)
        } catch {
            machine.requestWasAbandoned()
            throw GATTClientError(.bearerClosed, "sending \(type(of: pdu)) failed", underlying: error)
        }
        requestSerial &+= 1
        let timer = startTransactionTimer(serial: requestSerial, request: type(of: pdu))
        defer { timer?.cancel() }
        if case .arrived(let result) = slot {
            slot = .idle
            return try result.get()
        }
        if let closedError { throw closedError }
        return try await withCheckedThrowingContinuation { slot = .waiting($0) }
    }

    /// Sends a request and decodes the response as `Response`.
    func request<Response: ATTProtocolDataUnit>(
        _ pdu: some ATTProtocolDataUnit, expecting _: Response.Type
    ) async throws -> Response {
        let bytes = try await request(pdu)
        do throws(DecodeError) {
            return try Response(bytes: bytes)
        } catch {
            throw GATTClientError(
                .malformedResponse, "the response to \(type(of: pdu)) is not a \(Response.self)", underlying: error)
        }
    }

    private func startTransactionTimer(serial: UInt64, request: Any.Type) -> Task<Void, Never>? {
        guard let timeout = transactionTimeout else { return nil }
        let name = "\(request)"
        return Task { [weak self] in
            do { try await timeout.clock.sleep(for: timeout.duration) } catch { return }
            await self?.transactionTimedOut(serial: serial, request: name, after: timeout.duration)
        }
    }

    private func transactionTimedOut(serial: UInt64, request: String, after duration: Duration) {
        guard serial == requestSerial, machine.outstandingRequest != nil else { return }
        close(GATTClientError(.transactionTimeout, "no response to \(request) within \(duration)"))
    }

    private func acquireRequestSlot() async throws {
        if let closedError { throw closedError }
        if isRequestInFlight {
            // released by releaseRequestSlot(), which hands the slot over without clearing the flag
            try await withCheckedThrowingContinuation { queuedRequests.append($0) }
        }
        isRequestInFlight = true
    }

    private func releaseRequestSlot() {
        if queuedRequests.isEmpty {
            isRequestInFlight = false
        } else {
            queuedRequests.removeFirst().resume()
        }
    }

    /// Sends a command (no response) or any PDU outside the request slot.
    func sendUnsolicited(_ pdu: [UInt8]) async throws {
        if let closedError { throw closedError }
        do { try await bearer.send(pdu) } catch {
            throw GATTClientError(.bearerClosed, "sending failed", underlying: error)
        }
    }
}
