import ByteCoding

/// Joins the parts of a Fitness Machine data record that a machine split over several notifications ("More
/// Data"), and bounds how long a record may stay open.
///
/// A part with More Data set is held; the next part is laid over it (``FitnessMachineData/merging(_:)``); the part
/// with More Data clear completes the record, which ``add(_:at:)`` returns. A record still open after
/// ``maximumParts`` parts or ``maximumSpan`` seconds is dropped with a ``DecodeError``: a machine whose More Data
/// never ends must not hold readings back forever, nor grow memory.
///
/// Pure: times are arrival times in seconds on any monotonic scale. Bluetooth FTMS 1.0 §4.4.1.
public struct FitnessMachineReassembler<Record: FitnessMachineData>: Sendable {
    /// The most parts one record may have (an ATT MTU of 23 fits any record in three).
    public static var maximumParts: Int { 8 }
    /// The longest a record may stay open, in seconds (machines send a record each second or faster).
    public static var maximumSpan: Double { 3 }

    private var pending: Record?
    private var parts = 0
    private var openedAt = 0.0

    public init() {}

    /// Whether a record is open (a part with More Data was received and its last part was not).
    public var isOpen: Bool { pending != nil }

    /// Adds a part; returns the complete record when this part ends it.
    ///
    /// - Throws: ``DecodeError`` when the open record has gone on too long: the record, this part with it, is dropped.
    public mutating func add(_ part: Record, at time: Double) throws(DecodeError) -> Record? {
        if pending == nil { openedAt = time }
        let record = pending.map { $0.merging(part) } ?? part
        parts += 1
        if !part.hasMoreData {
            drop()
            return record
        }
        if parts >= Self.maximumParts || time - openedAt > Self.maximumSpan {
            let count = parts
            drop()
            throw DecodeError("More Data never ended (\(count) parts without a last one); record dropped", at: 0)
        }
        pending = record
        return nil
    }

    /// Forgets an open record (after a reconnect: its later parts will not come).
    public mutating func drop() {
        pending = nil
        parts = 0
    }
}
