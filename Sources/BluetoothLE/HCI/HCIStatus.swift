/// An HCI status or error code, as returned in Command Complete / Command Status events and
/// disconnection reasons.
///
/// An open set: unknown codes are kept.
///
/// Core 5.3 Vol 1 Part F §1.3 (list of error codes).
public struct HCIStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = HCIStatus(0x00)
    public static let unknownCommand = HCIStatus(0x01)
    public static let unknownConnectionIdentifier = HCIStatus(0x02)
    public static let hardwareFailure = HCIStatus(0x03)
    public static let authenticationFailure = HCIStatus(0x05)
    public static let pinOrKeyMissing = HCIStatus(0x06)
    public static let memoryCapacityExceeded = HCIStatus(0x07)
    public static let connectionTimeout = HCIStatus(0x08)
    public static let connectionLimitExceeded = HCIStatus(0x09)
    public static let connectionAlreadyExists = HCIStatus(0x0B)
    /// The controller refuses the command now, for example a legacy scan command while the host
    /// drives it with extended ones, or a scan already started by bluetoothd.
    public static let commandDisallowed = HCIStatus(0x0C)
    public static let unsupportedFeatureOrParameterValue = HCIStatus(0x11)
    public static let invalidCommandParameters = HCIStatus(0x12)
    public static let remoteUserTerminatedConnection = HCIStatus(0x13)
    public static let remoteDeviceTerminatedConnectionLowResources = HCIStatus(0x14)
    public static let remoteDeviceTerminatedConnectionPowerOff = HCIStatus(0x15)
    public static let connectionTerminatedByLocalHost = HCIStatus(0x16)
    public static let unsupportedRemoteFeature = HCIStatus(0x1A)
    public static let unspecifiedError = HCIStatus(0x1F)
    public static let llResponseTimeout = HCIStatus(0x22)
    public static let instantPassed = HCIStatus(0x28)
    public static let controllerBusy = HCIStatus(0x3A)
    /// The peer rejected the connection parameters (Polar H7 drops seen with this reason).
    public static let unacceptableConnectionParameters = HCIStatus(0x3B)
    public static let advertisingTimeout = HCIStatus(0x3C)
    public static let connectionTerminatedMICFailure = HCIStatus(0x3D)
    public static let connectionFailedToBeEstablished = HCIStatus(0x3E)

    public var isSuccess: Bool { self == .success }

    public var description: String {
        let name: String
        switch self {
        case .success: name = "Success"
        case .unknownCommand: name = "Unknown HCI Command"
        case .unknownConnectionIdentifier: name = "Unknown Connection Identifier"
        case .hardwareFailure: name = "Hardware Failure"
        case .authenticationFailure: name = "Authentication Failure"
        case .pinOrKeyMissing: name = "PIN or Key Missing"
        case .memoryCapacityExceeded: name = "Memory Capacity Exceeded"
        case .connectionTimeout: name = "Connection Timeout"
        case .connectionLimitExceeded: name = "Connection Limit Exceeded"
        case .connectionAlreadyExists: name = "Connection Already Exists"
        case .commandDisallowed: name = "Command Disallowed"
        case .unsupportedFeatureOrParameterValue: name = "Unsupported Feature or Parameter Value"
        case .invalidCommandParameters: name = "Invalid HCI Command Parameters"
        case .remoteUserTerminatedConnection: name = "Remote User Terminated Connection"
        case .remoteDeviceTerminatedConnectionLowResources:
            name = "Remote Device Terminated Connection due to Low Resources"
        case .remoteDeviceTerminatedConnectionPowerOff: name = "Remote Device Terminated Connection due to Power Off"
        case .connectionTerminatedByLocalHost: name = "Connection Terminated By Local Host"
        case .unsupportedRemoteFeature: name = "Unsupported Remote Feature"
        case .unspecifiedError: name = "Unspecified Error"
        case .llResponseTimeout: name = "LL Response Timeout"
        case .instantPassed: name = "Instant Passed"
        case .controllerBusy: name = "Controller Busy"
        case .unacceptableConnectionParameters: name = "Unacceptable Connection Parameters"
        case .advertisingTimeout: name = "Advertising Timeout"
        case .connectionTerminatedMICFailure: name = "Connection Terminated due to MIC Failure"
        case .connectionFailedToBeEstablished: name = "Connection Failed to be Established"
        default: name = "HCI error"
        }
        return "\(name) (0x\(hex(rawValue)))"
    }
}
