import BluetoothLE
import FitnessSensors
import Foundation
import Synchronization
import SystemPackage
import TestSupport
import Testing

@testable import BlueZTransport

/// Sensors that protect characteristics, and links that drop with reason 0x3B, over real socket
/// pairs to a simulated strap. The security upgrade stands in for the kernel's pairing: the
/// bearer's upgrade marks the peripheral's link encrypted, as `BT_SECURITY` medium does on L2CAP.
@Suite(.timeLimit(.minutes(1))) struct BLESensorSecurityTests {
    let peripheral = SimulatedPeripheral(profile: .heartRateStrap())
    let clock = ManualClock()
    typealias C = GATTAssignedNumbers.Characteristic

    /// A connector whose bearers can be secured (counting upgrades) and whose central ends are kept.
    final class SecuredLink: Sendable {
        let link: SocketPairLink
        let upgrades = Mutex(0)
        let centrals = Mutex<[SocketBearer]>([])
        let canSecure: Bool
        /// What the upgrade throws instead of securing the link (the kernel's pairing failing).
        let upgradeFailure: BlueZError?

        init(_ peripheral: SimulatedPeripheral, canSecure: Bool = true, upgradeFailure: BlueZError? = nil) {
            link = SocketPairLink(peripheral)
            self.canSecure = canSecure
            self.upgradeFailure = upgradeFailure
        }

        var connect: BLESensor.Connector {
            { [self] in
                let plain = try await link.connect()
                let peripheral = link.peripheral
                let upgrade: (@Sendable () async throws -> Void)? =
                    canSecure
                    ? { @Sendable [self] in
                        upgrades.withLock { $0 += 1 }
                        if let upgradeFailure { throw upgradeFailure }
                        await peripheral.encryptLatestLink()
                    } : nil
                let bearer = SocketBearer(socket: plain.socket, peer: plain.peer, securityUpgrade: upgrade)
                centrals.withLock { $0.append(bearer) }
                return bearer
            }
        }
    }

    func start(_ link: SecuredLink) -> (BLESensor, AsyncStream<SensorEvent>.Iterator) {
        let sensor = BLESensor(
            identifier: "unix:test", name: "Test", capabilities: .heartRateStrap, clock: clock,
            wallClock: TestWallClock().now, connect: link.connect)
        let recorder = EventRecorder()
        let events = recorder.events.makeAsyncIterator()
        sensor.start(recorder.handler)
        return (sensor, events)
    }

    @Test func insufficientEncryptionRaisesSecurityOnceAndRetries() async throws {
        await peripheral.protect(
            BluetoothUUID(C.modelNumberString), with: .insufficientEncryption, untilEncrypted: true)
        let link = SecuredLink(peripheral)
        var (sensor, events) = start(link)
        defer { sensor.stop() }
        #expect(await events.seen() == .connecting)
        #expect(await events.seen() == .connected)
        #expect(await events.seen() == .reading(.battery(BatteryReading(percent: 87))))
        #expect(link.upgrades.withLock { $0 } == 1)
        #expect(sensor.deviceInformation.modelNumber == "Simulated HR strap", "read again after the upgrade")
    }

    @Test func optionalCharacteristicsTheSensorRefusesAreSkipped() async throws {
        // Device Information refused outright; battery refused for want of authentication on a
        // link that cannot be secured: neither stops the heart rate.
        await peripheral.protect(BluetoothUUID(C.modelNumberString), with: .readNotPermitted)
        await peripheral.protect(BluetoothUUID(C.batteryLevel), with: .insufficientAuthentication)
        let link = SecuredLink(peripheral, canSecure: false)
        var (sensor, events) = start(link)
        defer { sensor.stop() }
        #expect(await events.seen() == .connecting)
        #expect(await events.seen() == .connected)
        try await peripheral.waitForMeasurementSubscriptions(1)
        await peripheral.step()
        var signal = HeartRateSignal()
        #expect(await events.seen() == .reading(.heartRate(HeartRateReading(signal.next()))))
        #expect(sensor.deviceInformation.modelNumber == nil)
        #expect(sensor.deviceInformation.manufacturerName == "OpenHealthKit")
    }

    @Test func anUpgradeThatFailsDuringAnOptionalReadSkipsTheReadAndHeartRateFollows() async throws {
        // Device Information needs encryption; pairing fails (a headless Pi whose bluetoothd has no
        // agent refuses it): the read is skipped, not the session, and the heart rate is subscribed.
        await peripheral.protect(
            BluetoothUUID(C.modelNumberString), with: .insufficientEncryption, untilEncrypted: true)
        let refused = BlueZError.connecting(to: "C7:3A:10:5E:22:F1/random", .permissionDenied)
        let link = SecuredLink(peripheral, upgradeFailure: refused)
        var (sensor, events) = start(link)
        defer { sensor.stop() }
        #expect(await events.seen() == .connecting)
        #expect(await events.seen() == .connected)
        #expect(await events.seen() == .reading(.battery(BatteryReading(percent: 87))))
        try await peripheral.waitForMeasurementSubscriptions(1)
        await peripheral.step()
        var signal = HeartRateSignal()
        #expect(await events.seen() == .reading(.heartRate(HeartRateReading(signal.next()))))
        #expect(link.upgrades.withLock { $0 } == 1)
        #expect(sensor.deviceInformation.modelNumber == nil)
        #expect(sensor.deviceInformation.manufacturerName == "OpenHealthKit")
    }

    @Test func aSensorThatStillRefusesAfterTheUpgradeIsNotAskedAgain() async throws {
        await peripheral.protect(BluetoothUUID(C.modelNumberString), with: .insufficientAuthentication)
        await peripheral.protect(BluetoothUUID(C.batteryLevel), with: .insufficientAuthentication)
        let link = SecuredLink(peripheral)
        var (sensor, events) = start(link)
        defer { sensor.stop() }
        #expect(await events.seen() == .connecting)
        #expect(await events.seen() == .connected)
        try await peripheral.waitForMeasurementSubscriptions(1)
        #expect(link.upgrades.withLock { $0 } == 1, "raised once per link, as BlueZ's att.c raises one level")
    }

    /// Reason 0x3B reaches an L2CAP socket as ENOSYS (bt_to_errno has no case for it); the sensor
    /// says so, backs off and reconnects, and readings resume.
    @Test func aLinkDroppedWithReason0x3BIsReconnected() async throws {
        let link = SecuredLink(peripheral)
        var (sensor, events) = start(link)
        defer { sensor.stop() }
        #expect(await events.seen() == .connecting)
        #expect(await events.seen() == .connected)
        #expect(await events.seen() == .reading(.battery(BatteryReading(percent: 87))))

        link.centrals.withLock { $0.last?.socket.simulatePendingError(.noFunction) }
        link.link.dropLatest()
        #expect(
            await events.seen()
                == .disconnected(
                    "The link to the sensor ended with a reason Linux has no errno for and reports as Function not implemented, for a dropped link one of 0x3B (connection parameters rejected), 0x3E (the connection failed to be established), 0x22 (link-layer response timeout), 0x28 (instant passed) or 0x3D (MIC failure); the kernel does not say which. If it recurs about a minute after each connection, it is 0x3B: `workout doctor` checks /etc/bluetooth/main.conf for it."
                ))
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(250))
        #expect(await events.seen() == .connecting)
        #expect(await events.seen() == .connected)
        #expect(await events.seen() == .reading(.battery(BatteryReading(percent: 87))))
        try await peripheral.waitForMeasurementSubscriptions(2)
        clock.advance(by: .seconds(1))
        await peripheral.step()
        var signal = HeartRateSignal()
        #expect(await events.seen() == .reading(.heartRate(HeartRateReading(signal.next()))))
        #expect(link.link.connectionCount == 2)
    }
}
