import BlueZTransport

/// A BlueZ pairing agent with no input and no output (`NoInputNoOutput`): what a strap or a power meter pairs
/// with, Just Works. Registered through `AgentManager1` for as long as a pairing runs, and made bluetoothd's default
/// agent meanwhile, so bluetoothd asks this program, not a desktop dialog (or nobody, on a headless Pi).
///
/// bluetoothd asks the agent of the program that called `Pair`, but the bond it makes by itself when a measurement
/// needs an encrypted link asks its default agent, which a desktop's is; registering does not make an agent the
/// default, `RequestDefaultAgent` does. bluetoothd keeps its default agents in order and gives the default back to
/// the one before when this one unregisters (BlueZ `src/agent.c`), so the desktop's is the default again after.
///
/// It confirms and authorises what Just Works asks (`RequestConfirmation`, `RequestAuthorization`,
/// `AuthorizeService`) and refuses what would need a person (`RequestPinCode`, `RequestPasskey`) with
/// `org.bluez.Error.Rejected`: a sensor that wants a PIN cannot be paired unattended.
///
/// BlueZ `doc/org.bluez.Agent.rst`, `org.bluez.AgentManager.rst`.
public final class PairingAgent: Sendable {
    /// Where the agent is exported.
    public static let path = "/org/openhealthkit/agent"

    private let client: BlueZClient
    private let export: BusConnection.Subscription
    private let requests: Locked<[String]>

    private init(client: BlueZClient, export: BusConnection.Subscription, requests: Locked<[String]>) {
        self.client = client
        self.export = export
        self.requests = requests
    }

    /// Exports the agent and registers it with bluetoothd.
    public static func register(with client: BlueZClient) async throws(BlueZError) -> PairingAgent {
        let requests = Locked<[String]>([])
        let export: BusConnection.Subscription
        do {
            export = try await client.connection.export(path) { call in
                let device = call.arguments.first?.string ?? ""
                requests.withLock { $0.append("\(call.member) \(device)".trimmingCharacters(in: .whitespaces)) }
                return answer(call)
            }
        } catch {
            throw BlueZClient.sentence(for: error, calling: "export the agent", at: path)
        }
        let agent = PairingAgent(client: client, export: export, requests: requests)
        do {
            _ = try await client.call(
                "/org/bluez", BlueZ.agentManager, "RegisterAgent",
                [.objectPath(path), .string("NoInputNoOutput")])
        } catch {
            export.cancel()
            throw error
        }
        // Refused only by a D-Bus policy that lets this program register but not be the default: `Pair` still asks
        // this agent, and a bond bluetoothd makes by itself asks the desktop's, as before.
        _ = try? await client.call("/org/bluez", BlueZ.agentManager, "RequestDefaultAgent", [.objectPath(path)])
        return agent
    }

    /// The methods bluetoothd called, in order (`RequestAuthorization /org/bluez/hci0/dev_…`): for logs and tests.
    public var requestLog: [String] { requests.withLock { $0 } }

    /// Unregisters the agent and stops answering.
    public func unregister() async {
        _ = try? await client.call(
            "/org/bluez", BlueZ.agentManager, "UnregisterAgent", [.objectPath(Self.path)],
            timeout: .seconds(5))
        export.cancel()
    }

    /// The answer to one of bluetoothd's requests.
    static func answer(_ call: BusConnection.MethodCall) -> Result<[DBusValue], DBusError> {
        guard call.interface == BlueZ.agent else {
            return .failure(
                DBusError(
                    name: "org.freedesktop.DBus.Error.UnknownMethod",
                    message: "\(call.interface).\(call.member) is not served here"))
        }
        switch call.member {
        case "Release", "Cancel", "DisplayPinCode", "DisplayPasskey", "RequestConfirmation", "RequestAuthorization",
            "AuthorizeService":
            return .success([])
        case "RequestPinCode", "RequestPasskey":
            return .failure(
                DBusError(
                    name: "org.bluez.Error.Rejected",
                    message: "This sensor asks for a PIN or passkey; it cannot be paired unattended"))
        default:
            return .failure(
                DBusError(
                    name: "org.freedesktop.DBus.Error.UnknownMethod", message: "Agent1.\(call.member) is not known"))
        }
    }
}
