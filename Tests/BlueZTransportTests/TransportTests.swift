import BluetoothLE
import FitnessSensors
import Foundation
import Glibc
import SystemPackage
import TestSupport
import Testing

@testable import BlueZTransport

/// Whether this kernel lacks Bluetooth: the case the clear-failure tests are about. On a kernel with
/// Bluetooth those tests are reported as skipped, not passed.
let kernelLacksBluetooth: Bool = {
    let fd = socket(AF_BLUETOOTH, Int32(SOCK_SEQPACKET.rawValue), 0)
    if fd >= 0 {
        close(fd)
        return false
    }
    return errno == EAFNOSUPPORT
}()

@Suite(.timeLimit(.minutes(1))) struct SocketBearerTests {
    @Test func socketPairKeepsMessageBoundariesAndSkipsEmptyMessages() async throws {
        let (a, b) = try SocketBearer.pair()
        try await a.send([0x1B, 0x03, 0x00, 0x06, 0x48])
        try await a.send([])
        try await a.send([0x0A, 0x03, 0x00])
        #expect(try await b.receive() == [0x1B, 0x03, 0x00, 0x06, 0x48])
        #expect(try await b.receive() == [0x0A, 0x03, 0x00], "a zero-length message carries no PDU and is skipped")
    }

    @Test func peerClosingIsALostLinkAndOwnCloseIsClosed() async throws {
        let (a, b) = try SocketBearer.pair()
        let waiting = Task { try await b.receive() }
        a.close()
        await #expect { try await waiting.value } throws: { ($0 as? BlueZError)?.code == .linkLost }
        await #expect { try await a.receive() } throws: { ($0 as? BlueZError)?.code == .closed }
        await #expect { try await b.send([0x01]) } throws: { ($0 as? BlueZError)?.code == .linkLost }
    }

    @Test func cancellingAReceiveEndsItPromptly() async throws {
        let (a, b) = try SocketBearer.pair()
        let waiting = Task { try await b.receive() }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        withExtendedLifetime(a) {}
    }

    @Test func nothingListeningIsOneSentence() async throws {
        #expect {
            try SocketBearer.connect(unixPath: "/nonexistent/strap.sock")
        } throws: {
            ($0 as? BlueZError)?.message
                == "Nothing listens at unix:/nonexistent/strap.sock; start one with `workout peripheral --listen PATH`."
        }
    }
}

@Suite(.timeLimit(.minutes(1))) struct SensorAddressTests {
    @Test func parsesEveryAcceptedSpelling() throws {
        #expect(try SensorAddress(parsing: "AA:BB:CC:DD:EE:FF") == .bluetooth(BluetoothAddress("AA:BB:CC:DD:EE:FF")!))
        #expect(
            try SensorAddress(parsing: "ble:c7:3a:10:5e:22:f1/random")
                == .bluetooth(BluetoothAddress("C7:3A:10:5E:22:F1", type: .random)!))
        #expect(try SensorAddress(parsing: "unix:/tmp/strap.sock") == .unix(path: "/tmp/strap.sock"))
        #expect(try SensorAddress(parsing: "C7:3A:10:5E:22:F1/random").identifier == "ble:C7:3A:10:5E:22:F1/random")
        #expect(try SensorAddress(parsing: "ble:AA:BB:CC:DD:EE:FF").description == "AA:BB:CC:DD:EE:FF")
    }

    @Test(arguments: ["AA:BB:CC:DD:EE", "AA:BB:CC:DD:EE:FG", "AA:BB:CC:DD:EE:FF/static", "unix:", "strap"])
    func rejectsOtherText(_ text: String) {
        #expect { try SensorAddress(parsing: text) } throws: { ($0 as? BlueZError)?.code == .invalidAddress }
    }

    @Test func makeSensorTakesBothSchemes() throws {
        #expect(try makeSensor(identifier: "unix:/tmp/x.sock").identifier == "unix:/tmp/x.sock")
        #expect(try makeSensor(identifier: "AA:BB:CC:DD:EE:FF/random").identifier == "ble:AA:BB:CC:DD:EE:FF/random")
        #expect(throws: BlueZError.self) { try makeSensor(identifier: "fixture:strap") }
    }
}

@Suite(.timeLimit(.minutes(1))) struct NoBluetoothTests {
    @Test(.enabled(if: kernelLacksBluetooth, "this kernel has Bluetooth"))
    func l2capConnectSaysTheKernelHasNoBluetooth() async throws {
        await #expect {
            try await L2CAPConnector.connect(to: BluetoothAddress("AA:BB:CC:DD:EE:FF")!)
        } throws: { error in
            let error = try #require(error as? BlueZError)
            return error.code == .bluetoothUnavailable
                && error.message == """
                    This kernel has no Bluetooth support (opening an L2CAP socket failed: Address family not supported by protocol); \
                    load it with `sudo modprobe bluetooth` or use a kernel built with CONFIG_BT.
                    """
        }
    }

    @Test(.enabled(if: kernelLacksBluetooth, "this kernel has Bluetooth"))
    func aStartedBLESensorReportsWhyItCannotConnect() async throws {
        let sensor = try makeSensor(identifier: "ble:AA:BB:CC:DD:EE:FF", clock: ManualClock())
        let recorder = EventRecorder()
        var events = recorder.events.makeAsyncIterator()
        sensor.start(recorder.handler)
        defer { sensor.stop() }
        #expect(await events.seen() == .connecting)
        #expect(
            await events.seen()
                == .disconnected(
                    """
                    This kernel has no Bluetooth support (opening an L2CAP socket failed: Address family not supported by protocol); \
                    load it with `sudo modprobe bluetooth` or use a kernel built with CONFIG_BT.
                    """))
    }
}

@Suite(.timeLimit(.minutes(1))) struct ErrnoMessageTests {
    @Test func connectionFailuresSayWhatToDo() {
        // EBUSY has two causes (issue 14, finding 5): another program's connection to the sensor
        // (l2cap_chan_connect finds CID 4 taken on the link), or another pending LE connection
        // attempt on the adapter (hci_connect_le).
        #expect(
            BlueZError.connecting(to: "AA:BB:CC:DD:EE:FF", .resourceBusy, adapter: "hci1").message
                == "AA:BB:CC:DD:EE:FF is busy (Device or resource busy): another program holds a connection to it (bluetoothd, when the sensor is paired or trusted there: run `bluetoothctl disconnect AA:BB:CC:DD:EE:FF`, or `bluetoothctl remove AA:BB:CC:DD:EE:FF` so it stops auto-connecting), or another LE connection attempt on hci1 is still pending; try again when it ends."
        )
        #expect(BlueZError.connecting(to: "X", .timedOut).code == .timedOut)
        // ECONNREFUSED from the radio is the peer's refusal; from connect() itself, LE is off.
        #expect(BlueZError.connecting(to: "X", .connectionRefused).code == .connectionFailed)
        let leOff = BlueZError.connecting(to: "X", .connectionRefused, adapter: "hci1", immediate: true)
        #expect(leOff.code == .adapterDown)
        #expect(
            leOff.message
                == "hci1 is down, or LE is off: run `bluetoothctl power on` (or `sudo btmgmt --index 1 power on` and `sudo btmgmt --index 1 le on`)."
        )
        #expect(BlueZError.connecting(to: "X", .noRouteToHost, adapter: "hci0").code == .adapterDown)
        #expect(BlueZError.opening("hci0", .operationNotSupportedByDevice).code == .noAdapter)
        let permission = BlueZError.opening("the management channel", .notPermitted)
        #expect(permission.code == .permissionDenied)
        #expect(
            permission.message.hasPrefix(
                "The management channel was refused (Operation not permitted): the kernel allows it to root or to a program holding CAP_NET_ADMIN"
            ))
        #expect(!permission.message.contains("cap_net_raw"))
    }

    @Test func bluetoothctlIsGivenPlainAddresses() {
        // bluetoothctl looks a device up by its address alone; "AA:…:FF/random" is not a form it takes.
        let busy = BlueZError.connecting(to: "C7:3A:10:5E:22:F1/random", .resourceBusy, adapter: "hci0").message
        #expect(busy.hasPrefix("C7:3A:10:5E:22:F1/random is busy"))
        #expect(
            busy.contains(
                "run `bluetoothctl disconnect C7:3A:10:5E:22:F1`, or `bluetoothctl remove C7:3A:10:5E:22:F1` so it"))
        #expect(
            BlueZError.connecting(to: "C7:3A:10:5E:22:F1/random", .permissionDenied).message
                == "C7:3A:10:5E:22:F1/random refused pairing or encryption (Permission denied); remove its bond with `bluetoothctl remove C7:3A:10:5E:22:F1` and try again."
        )
        #expect(BlueZError.bluetoothctlAddress("unix:/tmp/a/b") == "unix:/tmp/a/b")
    }

    @Test func anENOSYSDropNamesEveryReasonLinuxMapsToIt() {
        // bt_to_errno (net/bluetooth/lib.c): 0x22, 0x28, 0x3B, 0x3D and 0x3E all become ENOSYS.
        let drop = BlueZError.linkLost(.noFunction)
        #expect(drop.code == .linkLost)
        for reason in ["0x3B", "0x3E", "0x22", "0x28", "0x3D"] { #expect(drop.message.contains(reason), "\(reason)") }
        #expect(drop.message.contains("the kernel does not say which"))
    }
}
