/// The client side of a Fitness Machine Control Point conversation, as a pure state machine: which request to write
/// next, what an indication answers, and when a request has waited too long.
///
/// A machine takes one request at a time and answers each with an indication (FTMS 1.0 §4.16.2). Targets need
/// control: a target asked for without control queues Request Control before it. A refused Request Control drops
/// the targets queued behind it (each with its error); the machine is still recorded from. An indication when no
/// request waits is an error and changes nothing. A Control Permission Lost status (0xFF) takes control away.
///
/// Pure: times are seconds on any monotonic scale, given by the caller, which writes ``Step/write`` requests (with
/// response) and passes indications to ``received(_:at:)``. OpenHealthKit: HealthKit has no control of fitness
/// machines.
public struct FitnessMachineController: Sendable {
    public typealias Request = FitnessMachineControlPoint.Request

    /// How long a request waits for its indication, in seconds (the ATT transaction timeout).
    public static let responseTimeout: Double = 30

    /// What the caller does next.
    public struct Step: Sendable, Equatable {
        /// A request to write now, if any.
        public var write: Request?
        /// Requests answered with success.
        public var succeeded: [Request] = []
        /// Errors to report (a refusal, an unexpected indication, a timeout).
        public var errors: [FitnessMachineControlError] = []
        /// Queued requests a newer one of the same kind replaced before they were written: never sent.
        public var superseded: [Request] = []
    }

    public private(set) var hasControl = false
    /// The target power last accepted, in watts.
    public private(set) var targetPower: Int?
    private var outstanding: (request: Request, sentAt: Double)?
    private var queue: [Request] = []

    public init() {}

    /// The request waiting for its indication, if any.
    public var pending: Request? { outstanding?.request }

    /// Whether no request waits for its indication and none is queued behind one.
    public var isIdle: Bool { outstanding == nil && queue.isEmpty }

    /// Asks for a request; the step writes it at once when nothing else waits.
    public mutating func send(_ request: Request, at now: Double) -> Step {
        let needsControl = request != .requestControl
        let controlAsked = outstanding?.request == .requestControl || queue.contains(.requestControl)
        if needsControl, !hasControl, !controlAsked { queue.append(.requestControl) }
        // A newer target of the same kind replaces one still queued (a person pressing + five times sends one).
        let replaced = queue.filter { $0.opCode == request.opCode && request.opCode != Request.requestControl.opCode }
        queue.removeAll { $0.opCode == request.opCode && request.opCode != Request.requestControl.opCode }
        queue.append(request)
        var step = next(at: now)
        step.superseded = replaced
        return step
    }

    /// An indication of the control point arrived.
    public mutating func received(_ response: FitnessMachineControlPoint.Response, at now: Double) -> Step {
        guard let (request, _) = outstanding, request.opCode == response.requestOpCode else {
            return Step(errors: [
                FitnessMachineControlError(
                    request: "answer a request",
                    reason: .unexpectedResponse(requestOpCode: response.requestOpCode))
            ])
        }
        outstanding = nil
        var step: Step
        if response.result == .success {
            switch request {
            case .requestControl: hasControl = true
            case .setTargetPower(let watts): targetPower = Int(watts)
            case .reset, .stopOrPause(1): targetPower = nil
            default: break
            }
            step = next(at: now)
            step.succeeded.insert(request, at: 0)
        } else {
            var errors = [FitnessMachineControlError(request: request.summary, reason: .refused(response.result))]
            if request == .requestControl {
                errors += queue.map {
                    FitnessMachineControlError(request: $0.summary, reason: .refused(response.result))
                }
                queue.removeAll()
            }
            step = next(at: now)
            step.errors = errors + step.errors
        }
        return step
    }

    /// The machine announced a status; Control Permission Lost takes control away (a later target asks again).
    public mutating func received(_ status: FitnessMachineStatus) {
        if status.isControlPermissionLost { hasControl = false }
        if let watts = status.targetPower { targetPower = Int(watts) }
    }

    /// Checks the waiting request against ``responseTimeout``.
    public mutating func tick(at now: Double) -> Step {
        guard let (_, sentAt) = outstanding, now - sentAt >= Self.responseTimeout else { return Step() }
        return failOutstanding(.noResponse, at: now)
    }

    /// Writing the waiting request failed (the transport refused the write, or the link is not up): it is dropped
    /// with `reason`, and with it the targets behind a Request Control that never went out.
    public mutating func writeFailed(_ reason: FitnessMachineControlError.Reason, at now: Double) -> Step {
        guard outstanding != nil else { return Step() }
        return failOutstanding(reason, at: now)
    }

    private mutating func failOutstanding(_ reason: FitnessMachineControlError.Reason, at now: Double) -> Step {
        guard let (request, _) = outstanding else { return Step() }
        outstanding = nil
        var errors = [FitnessMachineControlError(request: request.summary, reason: reason)]
        if request == .requestControl {
            errors += queue.map { FitnessMachineControlError(request: $0.summary, reason: reason) }
            queue.removeAll()
        }
        var step = next(at: now)
        step.errors = errors + step.errors
        return step
    }

    /// The link dropped: nothing waits, control is gone (the machine forgets its client).
    public mutating func disconnected() {
        outstanding = nil
        queue.removeAll()
        hasControl = false
    }

    private mutating func next(at now: Double) -> Step {
        guard outstanding == nil, !queue.isEmpty else { return Step() }
        let request = queue.removeFirst()
        outstanding = (request, now)
        return Step(write: request)
    }
}
