/// What a sensor's transport reports to whoever controls the machine behind it: the link coming up (and whether the
/// machine offers a Fitness Machine Control Point), the values of the control point and status characteristics,
/// and the link going down.
///
/// OpenHealthKit: HealthKit has no control of fitness machines.
public enum ControlLinkEvent: Sendable, Equatable {
    /// A connection is set up and subscribed. `controlPoint` says whether the machine offers a Fitness Machine
    /// Control Point (0x2AD9) whose indications are now enabled: only then can requests be written.
    case connected(controlPoint: Bool)
    /// A value indicated or notified on the control point (0x2AD9) or Fitness Machine Status (0x2ADA), unchanged,
    /// in arrival order, never dropped as a duplicate (two identical answers to two requests are two answers); or the
    /// Supported Power Range (0x2AD8) as read at each connection, just before its `.connected`.
    case value(characteristic: UInt16, bytes: [UInt8])
    /// The link is gone; the machine forgets its client (control must be asked for again).
    case disconnected
}

/// A sensor whose transport can write a characteristic and report the control point's indications: what a
/// transport provides so that a fitness machine can be controlled (OpenHealthKit's `FitnessMachineControl`).
///
/// A transport provides three things:
/// 1. ``writeWithResponse(_:to:)``: an ATT Write Request (or bluetoothd's `WriteValue` with type `request`) to a
///    characteristic of the current connection, returning once the peer's Write Response arrived, throwing when
///    there is no connection, no such characteristic, or the peer refuses the write.
/// 2. Indications of the control point enabled at every connection, alongside the measurements.
/// 3. ``watchControlLink(_:)``: the link's ups and downs and those characteristics' values, to one handler, in
///    order. The handler hears the current state at once when the link is already up.
///
/// OpenHealthKit: HealthKit has no control of fitness machines.
public protocol ControllableSensor: Sensor {
    /// Writes `bytes` to `characteristic` (a 16-bit assigned number) with response.
    ///
    /// - Throws: When the link is down, the characteristic is not offered, or the peer refuses the write; the
    ///   error's description is one sentence.
    func writeWithResponse(_ bytes: [UInt8], to characteristic: UInt16) async throws
    /// Sets (or, with nil, removes) the one handler of the link's control events.
    func watchControlLink(_ handler: (@Sendable (ControlLinkEvent) -> Void)?)
}
