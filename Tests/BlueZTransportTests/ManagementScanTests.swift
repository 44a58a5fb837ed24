import BluetoothLE
import TestSupport
import Testing

@testable import BlueZTransport

/// The scanner against a scripted kernel at the management socket: the command packets it writes
/// are compared byte for byte with the ones written out in ``ScriptedKernel``, and the kernel's
/// answers and events are written out there too. No HCI command is ever sent: the kernel scans.
@Suite(.timeLimit(.minutes(1))) struct ManagementScanTests {
    typealias Step = ScriptedKernel.Step
    typealias K = ScriptedKernel

    /// "OHK Strap" advertising heart rate at C0:11:22:33:44:55 (random, static): flags 06, complete
    /// 16-bit UUIDs 0x180D, complete name.
    static let strapAddress: [UInt8] = [0xC0, 0x11, 0x22, 0x33, 0x44, 0x55]
    static let strap = BluetoothAddress("C0:11:22:33:44:55", type: .random)!
    static let strapFound = K.deviceFound(
        strapAddress, random: true, rssi: -60,
        eir: [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18, 0x0A, 0x09] + Array("OHK Strap".utf8))
    /// A power meter at 00:22:D0:11:22:33 (public), known by appearance 0x0484 (AD type 0x19).
    static let meter = BluetoothAddress("00:22:D0:11:22:33")!
    static let meterFound = K.deviceFound(
        [0x00, 0x22, 0xD0, 0x11, 0x22, 0x33], random: false, rssi: -70,
        eir: [0x03, 0x19, 0x84, 0x04])

    let clock = ManualClock()

    /// Starts discovery against the kernel while it plays `script`.
    func start(_ kernel: ScriptedKernel, _ script: [Step]) async throws -> (ManagementScanner, Task<Int, any Error>) {
        let player = Task { try await kernel.play(script) }
        let scanner = try await ManagementScanner.start(
            socket: kernel.host.socket, index: 0, adapterName: "hci0", clock: clock,
            openStopSocket: kernel.openSocket)
        return (scanner, player)
    }

    /// A scan of 5 s on the manual clock that reports each device heard on `heard`.
    func scan(_ scanner: ManagementScanner) -> (Task<[DiscoveredDevice], any Error>, AsyncStream<DiscoveredDevice>) {
        let (heard, continuation) = AsyncStream.makeStream(of: DiscoveredDevice.self)
        let task = Task { try await scanner.scan(for: .seconds(5), clock: clock) { continuation.yield($0) } }
        return (task, heard)
    }

    @Test func discoveryIsStartedAndStoppedThroughTheKernelAndItsDevicesAreListed() async throws {
        let kernel = try ScriptedKernel()
        let (scanner, player) = try await start(
            kernel,
            [
                // A device found before the start's answer is read is kept, not lost in the wait.
                Step(
                    socket: 0, command: K.startDiscovery,
                    events: [Self.strapFound, K.complete(0x0023), K.discovering(true)]),
                Step(socket: 1, command: K.stopDiscovery, events: [K.discovering(false), K.complete(0x0024)]),
            ])
        let (task, _) = scan(scanner)
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        let devices = try await task.value
        #expect(try await player.value == 0, "the script was used up")
        #expect(devices.map(\.address) == [Self.strap])
        #expect(devices.first?.name == "OHK Strap")
        #expect(devices.first?.services == [BluetoothUUID(0x180D)])
        #expect(devices.first?.rssi == -60)
        #expect(devices.first?.addressSpelling == "C0:11:22:33:44:55/random")
        #expect(scanner.restarts == 0)
    }

    @Test func aScanTheKernelEndsIsStartedAgainAndKeepsListening() async throws {
        let kernel = try ScriptedKernel()
        let (scanner, player) = try await start(
            kernel,
            [
                // The kernel ends LE discovery by itself (10.24 s, or to connect): Discovering 0.
                Step(
                    socket: 0, command: K.startDiscovery,
                    events: [K.complete(0x0023), Self.strapFound, K.discovering(false)]),
                Step(
                    socket: 0, command: K.startDiscovery,
                    events: [K.complete(0x0023), K.discovering(true), Self.meterFound]),
                Step(socket: 1, command: K.stopDiscovery, events: [K.complete(0x0024)]),
            ])
        let (task, heard) = scan(scanner)
        var count = 0
        for await _ in heard {
            count += 1
            if count == 2 { break }
        }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        let devices = try await task.value
        #expect(try await player.value == 0)
        #expect(scanner.restarts == 1)
        #expect(devices.map(\.address) == [Self.strap, Self.meter])
        #expect(devices.map(\.kind) == [.heartRate, .cyclingPower])
    }

    @Test func aRestartTheKernelRefusesEndsTheScanWithWhatWasHeardAndWhy() async throws {
        let kernel = try ScriptedKernel()
        let (scanner, player) = try await start(
            kernel,
            [
                Step(
                    socket: 0, command: K.startDiscovery,
                    events: [K.complete(0x0023), Self.strapFound, K.discovering(false)]),
                Step(socket: 0, command: K.startDiscovery, events: [K.complete(0x0023, status: 0x0A)]),  // Busy
                // Stop Discovery is still sent; Rejected (0x0B) says nothing was discovering: fine.
                Step(socket: 1, command: K.stopDiscovery, events: [K.complete(0x0024, status: 0x0B)]),
            ])
        let (task, _) = scan(scanner)
        let interrupted = await #expect(throws: ScanInterrupted.self) { try await task.value }
        #expect(try await player.value == 0)
        #expect(interrupted?.devices.map(\.address) == [Self.strap])
        #expect(interrupted?.reason.code == .busy)
        #expect(
            interrupted?.reason.message
                == "The kernel ended the scan on hci0 and refused to start it again: hci0 is already discovering for another program (Busy (0x0A)), bluetoothd's `bluetoothctl scan on` perhaps; run `bluetoothctl scan off` or wait until it ends, and try again."
        )
    }

    @Test func anAdapterRemovedDuringTheScanEndsItWithWhatWasHeard() async throws {
        let kernel = try ScriptedKernel()
        let (scanner, player) = try await start(
            kernel,
            [
                Step(
                    socket: 0, command: K.startDiscovery, events: [K.complete(0x0023), Self.meterFound, K.indexRemoved]),
                Step(socket: 1, command: K.stopDiscovery, events: [K.complete(0x0024, status: 0x11)]),  // Invalid Index
            ])
        let (task, _) = scan(scanner)
        let interrupted = await #expect(throws: ScanInterrupted.self) { try await task.value }
        #expect(try await player.value == 0)
        // The interruption is what is said, not the stop's refusal that follows from it.
        #expect(interrupted?.devices.map(\.address) == [Self.meter])
        #expect(interrupted?.reason.code == .noAdapter)
        #expect(
            interrupted?.reason.message
                == "hci0 went away during the scan; `workout adapters` lists the adapters present.")
    }

    @Test func cancellingTheScanStopsDiscoveryAndReturnsWhatWasHeard() async throws {
        let kernel = try ScriptedKernel()
        let (scanner, player) = try await start(
            kernel,
            [
                Step(socket: 0, command: K.startDiscovery, events: [K.complete(0x0023), Self.strapFound]),
                Step(socket: 1, command: K.stopDiscovery, events: [K.complete(0x0024)]),
            ])
        let (task, heard) = scan(scanner)
        for await _ in heard { break }
        task.cancel()  // what Ctrl-C does in `workout scan`
        let devices = try await task.value
        #expect(try await player.value == 0, "Stop Discovery went out after the cancellation")
        #expect(devices.map(\.address) == [Self.strap])
    }

    @Test func withoutCapNetAdminTheKernelRefusesDiscoveryAndTheFixIsSaid() async throws {
        let kernel = try ScriptedKernel()
        let player = Task {
            try await kernel.play([
                // mgmt.c answers a command outside its untrusted list with Permission Denied (0x14).
                Step(socket: 0, command: K.startDiscovery, events: [K.complete(0x0023, status: 0x14)])
            ])
        }
        let error = await #expect(throws: BlueZError.self) {
            try await ManagementScanner.start(
                socket: kernel.host.socket, index: 0, adapterName: "hci0", clock: clock,
                openStopSocket: kernel.openSocket)
        }
        #expect(try await player.value == 0)
        #expect(error?.code == .permissionDenied)
        #expect(
            error?.message.hasPrefix(
                "Scanning without bluetoothd needs the CAP_NET_ADMIN capability: the kernel's management channel refused to start discovery on hci0 (Permission Denied (0x14)). Run `workout scan` as root, or grant it with `sudo setcap cap_net_admin+eip "
            ) == true)
        #expect(error?.message.contains("cap_net_raw") == false)
    }

    @Test func anAdapterOffOrWithLEOffIsNamedWithItsFix() {
        #expect(ManagementScanner.refusal(.notPowered, "hci1", index: 1).code == .adapterDown)
        #expect(
            ManagementScanner.refusal(.notSupported, "hci1", index: 1).message
                == "hci1 cannot discover LE devices (Not Supported (0x0C)): LE is off on it; run `sudo btmgmt --index 1 le on`."
        )
        #expect(
            ManagementScanner.refusal(.rfKilled, "hci1", index: 1).message
                == "hci1 is blocked by rfkill (RFKilled (0x12)); run `rfkill unblock bluetooth`.")
        #expect(
            ManagementScanner.refusal(MGMTStatus(rawValue: 0x42), "hci1", index: 1).message
                == "hci1 refused to start discovery (status 0x42).")
    }

    @Test func aStopTheKernelNeverAnswersTimesOutAndSaysSo() async throws {
        let kernel = try ScriptedKernel()
        let (scanner, player) = try await start(
            kernel,
            [
                Step(socket: 0, command: K.startDiscovery, events: [K.complete(0x0023)]),
                Step(socket: 1, command: K.stopDiscovery, events: [], answers: false),
            ])
        let (task, _) = scan(scanner)
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        #expect(try await player.value == 0)
        try await clock.waitForSleepers(1)  // the stop's 2 s limit
        clock.advance(by: .seconds(2))
        let error = await #expect(throws: BlueZError.self) { try await task.value }
        #expect(error?.code == .timedOut)
        #expect(
            error?.message
                == "hci0 may still be discovering (the kernel ends it within about 10 s): The kernel did not answer stopping discovery on hci0 within 2 s."
        )
    }
}

/// Without bluetoothd, every adapter that is up scans at once when none is chosen: one kernel script per adapter,
/// what they heard merged as through bluetoothd.
extension ManagementScanTests {
    @Test func everyAdapterScansAtOnceAndEachDeviceSaysWhichHeardIt() async throws {
        // hci0 hears the strap weakly and the power meter; hci1 the strap strongly. Found before the start's answer,
        // so each is in hand before the scan's time runs (the first test shows they are kept).
        let nearStrap = Self.strapFound
        let farStrap = K.deviceFound(
            Self.strapAddress, random: true, rssi: -48,
            eir: [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18, 0x0A, 0x09] + Array("OHK Strap".utf8))
        var players: [Task<Int, any Error>] = []
        var scanners: [ManagementScanner] = []
        for (name, found) in [("hci0", [nearStrap, Self.meterFound]), ("hci1", [farStrap])] {
            let kernel = try ScriptedKernel()
            players.append(
                Task {
                    try await kernel.play([
                        Step(socket: 0, command: K.startDiscovery, events: found + [K.complete(0x0023)]),
                        Step(socket: 1, command: K.stopDiscovery, events: [K.complete(0x0024)]),
                    ])
                })
            scanners.append(
                try await ManagementScanner.start(
                    socket: kernel.host.socket, index: 0, adapterName: name, clock: clock,
                    openStopSocket: kernel.openSocket))
        }
        let scan = Task { try await ManagementScanner.scan(scanners, for: .seconds(5), clock: clock) }
        try await clock.waitForSleepers(2)
        clock.advance(by: .seconds(5))
        let devices = try await scan.value
        for player in players { #expect(try await player.value == 0, "each script was used up") }
        #expect(devices.map(\.address) == [Self.strap, Self.meter])
        // The strap once, with both adapters, the stronger first and its signal kept; the meter heard by hci0 alone.
        #expect(devices.first?.adapters == ["hci1", "hci0"])
        #expect(devices.first?.rssi == -48)
        #expect(devices.last?.adapters == ["hci0"])
    }
}
