/// One ATT bearer: a channel that carries whole ATT PDUs, one per message.
///
/// On Linux this is an L2CAP LE socket on the fixed ATT channel (CID 0x0004), whose
/// `SOCK_SEQPACKET` semantics keep PDU boundaries; tests use an in-memory scripted bearer or an
/// `AF_UNIX` socket pair. `receive()` returns the next PDU and throws once the bearer is closed;
/// it should return promptly when its task is cancelled.
///
/// Core 5.3 Vol 3 Part F §3.2.11 (ATT bearers) and Part A §2.1 (fixed channel 0x0004).
public protocol ATTBearer: Sendable {
    /// Sends one PDU.
    func send(_ pdu: [UInt8]) async throws
    /// Waits for the next PDU from the peer.
    func receive() async throws -> [UInt8]
}
