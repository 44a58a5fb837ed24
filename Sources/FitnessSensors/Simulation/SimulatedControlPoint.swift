/// The machine's side of a Fitness Machine Control Point, as a simulated machine answers its centrals: who holds
/// control, each request's answer (a control point indication) and what the machine announces on Fitness Machine
/// Status after it. What the request does to the machine itself (a new target) is the caller's `perform`.
///
/// Request Control is granted unless ``grantsControl`` is off; any other request from a central without control gets
/// Control Not Permitted; bytes that are no request get Invalid Parameter. A new target power is announced (status
/// 0x08), and taking control away announces Control Permission Lost (0xFF).
///
/// Both simulations use it: `workout peripheral` over ATT, and OpenHealthKitTesting's in-process smart trainer.
///
/// Bluetooth FTMS 1.0 §4.16.2 (Control Point procedures) and §4.17 (Fitness Machine Status).
public struct SimulatedControlPoint: Sendable {
    public typealias Request = FitnessMachineControlPoint.Request
    public typealias ResultCode = FitnessMachineControlPoint.ResultCode

    /// What the machine does with one write of the control point.
    public struct Answer: Sendable, Equatable {
        /// The request, nil when the bytes are none.
        public var request: Request?
        public var result: ResultCode
        /// The control point indication that answers it.
        public var response: [UInt8]
        /// What the machine then announces on Fitness Machine Status, if anything.
        public var status: [UInt8]?
    }

    /// Whether the machine grants control when asked (a trainer another app holds refuses it).
    public var grantsControl = true
    private var controllers: Set<Int> = []

    public init() {}

    /// Answers `bytes` written to the control point by `central` (any number that tells centrals apart); `perform`
    /// carries out a request from a central in control and gives its result.
    public mutating func answer(
        _ bytes: [UInt8], from central: Int, perform: (Request) -> ResultCode
    ) -> Answer {
        let request = try? Request(bytes: bytes)
        let result: ResultCode
        switch request {
        case nil: result = .invalidParameter
        case .requestControl?:
            result = grantsControl ? .success : .controlNotPermitted
            if grantsControl { controllers.insert(central) }
        case .some where !controllers.contains(central): result = .controlNotPermitted
        case let request?: result = perform(request)
        }
        var status: [UInt8]?
        if result == .success, case .setTargetPower(let watts)? = request {
            status = FitnessMachineStatus(
                opCode: 0x08, parameters: [UInt8(truncatingIfNeeded: watts), UInt8(truncatingIfNeeded: watts >> 8)]
            ).encode()
        }
        let response = FitnessMachineControlPoint.Response(requestOpCode: bytes.first ?? 0, result: result).encode()
        return Answer(request: request, result: result, response: response, status: status)
    }

    /// Takes control away from every central, as a machine does when another client takes it or a person presses its
    /// own buttons; returns the status to announce (Control Permission Lost, 0xFF). A central must ask for control
    /// again before its next request.
    public mutating func revokeControl() -> [UInt8] {
        controllers.removeAll()
        return FitnessMachineStatus(opCode: 0xFF).encode()
    }
}

extension SmartTrainerSignal {
    /// Carries out a control point request as a trainer does; returns its result code. A trainer takes targets of
    /// power within ``powerRange``, and a resistance level or a grade, which it turns into a power (10 W a level,
    /// 200 W + 25 W a percent of grade); starting, stopping and resetting succeed and change nothing.
    public mutating func control(_ request: FitnessMachineControlPoint.Request) -> FitnessMachineControlPoint.ResultCode
    {
        switch request {
        case .requestControl, .reset, .startOrResume, .stopOrPause: return .success
        case .setTargetPower(let watts):
            guard powerRange.contains(Int(watts)) else { return .invalidParameter }
            targetPower = Double(watts)
        case .setTargetResistanceLevel(let level):
            guard level <= 200 else { return .invalidParameter }
            targetPower = Double(level)
        case .setIndoorBikeSimulation(_, let grade, _, _):
            targetPower = max(0, 200 + 25 * Double(grade) / 100)
        default: return .opCodeNotSupported
        }
        return .success
    }
}
