/// The status of a management command, as Command Complete and Command Status carry it.
///
/// An open set, like ``HCIStatus``: codes the kernel may add later decode too.
///
/// BlueZ `doc/mgmt-api.txt` ("Error Codes").
public struct MGMTStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = MGMTStatus(rawValue: 0x00)
    public static let unknownCommand = MGMTStatus(rawValue: 0x01)
    public static let failed = MGMTStatus(rawValue: 0x03)
    public static let busy = MGMTStatus(rawValue: 0x0A)
    public static let rejected = MGMTStatus(rawValue: 0x0B)
    public static let notSupported = MGMTStatus(rawValue: 0x0C)
    public static let invalidParameters = MGMTStatus(rawValue: 0x0D)
    public static let notPowered = MGMTStatus(rawValue: 0x0F)
    public static let invalidIndex = MGMTStatus(rawValue: 0x11)
    public static let rfKilled = MGMTStatus(rawValue: 0x12)
    /// The socket is not trusted (its process lacks CAP_NET_ADMIN) and the command is not one of
    /// the few the kernel answers on untrusted sockets.
    public static let permissionDenied = MGMTStatus(rawValue: 0x14)

    private static let names: [UInt8: String] = [
        0x00: "Success", 0x01: "Unknown Command", 0x02: "Not Connected", 0x03: "Failed", 0x04: "Connect Failed",
        0x05: "Authentication Failed", 0x06: "Not Paired", 0x07: "No Resources", 0x08: "Timeout",
        0x09: "Already Connected", 0x0A: "Busy", 0x0B: "Rejected", 0x0C: "Not Supported", 0x0D: "Invalid Parameters",
        0x0E: "Disconnected", 0x0F: "Not Powered", 0x10: "Cancelled", 0x11: "Invalid Index", 0x12: "RFKilled",
        0x13: "Already Paired", 0x14: "Permission Denied",
    ]

    /// `Busy (0x0A)`.
    public var description: String {
        let code = "0x" + (rawValue < 0x10 ? "0" : "") + String(rawValue, radix: 16, uppercase: true)
        return Self.names[rawValue].map { "\($0) (\(code))" } ?? "status \(code)"
    }
}
