import BluetoothLE
import Synchronization

/// Retries a GATT request once after raising the link's security, when the sensor refuses it
/// with Insufficient Authentication (0x05) or Insufficient Encryption (0x0F).
///
/// This is what BlueZ's own ATT layer does (`src/shared/att.c`, `change_security` on an Error
/// Response): raise `BT_SECURITY` — to medium from low — and resend the request. Security is
/// raised at most once per link; a sensor that still refuses needs a higher level (MITM
/// pairing), which is beyond an unattended client, and the error stands. An upgrade that itself
/// fails (pairing refused or timed out) throws ``SecurityUpgradeFailed``, so that a caller can
/// skip an optional read instead of ending the session.
///
/// Core 5.3 Vol 3 Part F §3.4.1.1 (error codes 0x05, 0x0F) and Part C §10.3 (LE security mode 1).
final class SecurityRetry: Sendable {
    private let upgrade: (@Sendable () async throws -> Void)?
    private let raised = Mutex(false)

    /// - Parameter upgrade: the bearer's ``SocketBearer/securityUpgrade``; `nil` never retries.
    init(upgrade: (@Sendable () async throws -> Void)?) {
        self.upgrade = upgrade
    }

    /// Whether the link's security has been raised.
    var hasRaised: Bool { raised.withLock { $0 } }

    /// Whether an ATT error asks for more security than the link has.
    static func asksForSecurity(_ code: ATTErrorCode) -> Bool {
        code == .insufficientAuthentication || code == .insufficientEncryption
    }

    /// Runs `request`; on 0x05 or 0x0F, raises security (the first time only) and runs it again.
    func perform<T>(_ request: () async throws -> T) async throws -> T {
        do {
            return try await request()
        } catch let error as ATTErrorResponse where Self.asksForSecurity(error.errorCode) {
            guard let upgrade,
                raised.withLock({ raised in
                    defer { raised = true }
                    return !raised
                })
            else { throw error }
            do { try await upgrade() } catch { throw SecurityUpgradeFailed(underlying: error) }
            return try await request()
        }
    }
}

/// The link's security could not be raised for a request that needed it: the kernel's pairing or
/// encryption failed (refused, timed out), or the link went while it ran.
struct SecurityUpgradeFailed: Error {
    var underlying: any Error
}
