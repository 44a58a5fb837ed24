import ArgumentParser
import BlueZTransport
import BluetoothLE
import Dispatch
import FitnessSensors
import Foundation
import Synchronization

extension Workout {
    struct Peripheral: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a simulated BLE sensor on a Unix socket, until Ctrl-C.",
            discussion: """
                Serves a GATT heart-rate strap (HR + RR at 1 Hz, battery, device information), power \
                meter (power, crank and wheel revolutions at 4 Hz, counters that wrap), foot pod (running \
                speed and cadence at 1 Hz), smart trainer (indoor bike data at 2 Hz, some split over two \
                notifications; it follows a target power set on its control point), treadmill (speed and \
                incline) or rower over an AF_UNIX SOCK_SEQPACKET socket, speaking the same ATT bytes as \
                the real device. Anything that takes an address takes unix:PATH to reach it.

                Example:
                  workout peripheral --profile heart-rate --listen /tmp/strap.sock &
                  workout pair unix:/tmp/strap.sock
                  workout peripheral --profile cycling-power --listen /tmp/pm --dropout 60:10
                """
        )

        @Option(
            help: ArgumentHelp(
                "heart-rate, cycling-power, foot-pod, smart-trainer, treadmill or rower.", valueName: "PROFILE"))
        var profile: String

        @Option(help: ArgumentHelp("The socket path to listen at.", valueName: "PATH"))
        var listen: String

        @Option(
            help: ArgumentHelp(
                "Serve the notifications a fixture recorded for this profile's measurement, at their recorded pace.",
                valueName: "FILE"))
        var fixture: String?

        @Option(help: ArgumentHelp("The advertised name.", valueName: "NAME"))
        var name: String?

        @Option(
            help: ArgumentHelp(
                "At AT seconds, stop notifying and drop the links (refusing new ones) for SECONDS (repeatable).",
                valueName: "AT:SECONDS"))
        var dropout: [String] = []

        @Option(help: ArgumentHelp("The battery level to report, 0–100.", valueName: "PERCENT"))
        var battery: Int?

        @Option(
            help: ArgumentHelp(
                "At AT seconds, report no skin contact for SECONDS (a strap; repeatable).", valueName: "AT:SECONDS"))
        var noContact: [String] = []

        @Option(help: ArgumentHelp("Send every Nth notification malformed (cut to one byte).", valueName: "N"))
        var malformedEvery: Int?

        @Flag(help: "Refuse control of the machine (a smart trainer another app holds).")
        var refuseControl = false

        @Option(
            help: ArgumentHelp(
                "A smart trainer's highest target power (its Supported Power Range; default 2000).", valueName: "WATTS")
        )
        var maxPower: Int?

        /// The faults the options ask for.
        func faults() throws -> PeripheralFaults {
            var faults = PeripheralFaults()
            for text in dropout {
                guard let window = PeripheralFaults.Window(parsing: text) else {
                    throw ValidationError(
                        "--dropout takes AT:SECONDS (seconds from the start, then a duration above 0), not '\(text)'.")
                }
                faults.dropouts.append(window)
            }
            for text in noContact {
                guard let window = PeripheralFaults.Window(parsing: text) else {
                    throw ValidationError(
                        "--no-contact takes AT:SECONDS (seconds from the start, then a duration above 0), not '\(text)'."
                    )
                }
                faults.noContact.append(window)
            }
            if let battery {
                guard (0 ... 100).contains(battery) else {
                    throw ValidationError("--battery must be between 0 and 100, not \(battery).")
                }
                faults.batteryPercent = UInt8(battery)
            }
            if let malformedEvery {
                guard malformedEvery > 0 else {
                    throw ValidationError("--malformed-every must be a positive number, not \(malformedEvery).")
                }
                faults.malformedEvery = malformedEvery
            }
            return faults
        }

        func validate() throws {
            guard PeripheralProfile.Kind(rawValue: profile) != nil else {
                let kinds = PeripheralProfile.Kind.allCases.map(\.rawValue)
                throw ValidationError(
                    "--profile must be \(kinds.dropLast().joined(separator: ", ")) or \(kinds.last!), not '\(profile)'."
                )
            }
            _ = try faults()
            if let maxPower {
                guard profile == PeripheralProfile.Kind.smartTrainer.rawValue else {
                    throw ValidationError("--max-power is a smart trainer's: it needs --profile smart-trainer.")
                }
                guard (1 ... 2000).contains(maxPower) else {
                    throw ValidationError("--max-power must be between 1 and 2000 W, not \(maxPower).")
                }
            }
        }

        func run() async throws {
            try await reportingErrors {
                var profile = PeripheralProfile.kind(PeripheralProfile.Kind(rawValue: self.profile)!)
                if let maxPower { profile = .smartTrainer(maximumPower: maxPower) }
                let recorded = try fixture.map {
                    try RecordedNotifications(path: $0, characteristic: profile.measurement)
                }
                if let name { profile.name = name }
                let listener = try UnixListener(path: listen)
                defer { listener.close() }
                let faults = try faults()
                let peripheral = SimulatedPeripheral(profile: faults.applied(to: profile))
                if refuseControl { await peripheral.setGrantsControl(false) }
                print("Simulated \(profile.kind.rawValue) sensor '\(profile.name)' at unix:\(listen); Ctrl-C stops it.")
                fflush(nil)
                let dropped = DropCounter()
                let time = Workout.time
                time.peripheralStarted(sent: { await peripheral.notificationsSent }, dropped: { dropped.count })
                await serve(
                    peripheral, listener: listener, profile: profile, faults: faults, recorded: recorded,
                    dropped: dropped, clock: time.clock)
            }
        }

        /// Serves centrals and notifies on `clock` until SIGINT or SIGTERM.
        private func serve<C: Clock>(
            _ peripheral: SimulatedPeripheral, listener: UnixListener, profile: PeripheralProfile,
            faults: PeripheralFaults, recorded: RecordedNotifications?, dropped: DropCounter,
            clock: C
        ) async where C.Duration == Duration {
            let interval = profile.interval
            let measurement = profile.measurement
            let heartRate = profile.kind == .heartRate
            let started = clock.now
            let seconds: @Sendable () -> Double = { Workout.Peripheral.seconds(started.duration(to: clock.now)) }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await interrupted() }
                group.addTask {
                    while let bearer = try? await listener.acceptBearer() {
                        // In a dropout the peripheral is out of reach: links are refused.
                        if faults.isDroppedOut(at: seconds()) {
                            dropped.add(1)
                            bearer.close()
                            continue
                        }
                        Task { await peripheral.serve(bearer) }
                    }
                }
                group.addTask {
                    var number = 0
                    var droppedOut = false
                    /// Whether `now` is in a dropout; its start drops every link.
                    func inDropout(_ now: Double) async -> Bool {
                        guard faults.isDroppedOut(at: now) else {
                            droppedOut = false
                            return false
                        }
                        if !droppedOut { dropped.add(await peripheral.disconnectAll()) }
                        droppedOut = true
                        return true
                    }
                    if let recorded {
                        // The recording, at its own pace, from the start again when it ends.
                        while !Task.isCancelled {
                            let start = clock.now
                            for (offset, bytes) in recorded.notifications {
                                do {
                                    try await clock.sleep(
                                        until: start.advanced(by: .milliseconds(Int64(offset * 1000))), tolerance: nil)
                                } catch { return }
                                let now = seconds()
                                if await inDropout(now) { continue }
                                number += 1
                                await peripheral.publish(
                                    faults.apply(to: bytes, heartRate: heartRate, number: number, at: now),
                                    of: measurement)
                            }
                            do { try await clock.sleep(until: clock.now.advanced(by: interval), tolerance: nil) } catch
                            { return }
                        }
                    }
                    var next = clock.now
                    while !Task.isCancelled {
                        next = next.advanced(by: interval)
                        do { try await clock.sleep(until: next, tolerance: nil) } catch { return }
                        let now = seconds()
                        if await inDropout(now) { continue }
                        number += 1
                        let count = number
                        await peripheral.step { faults.apply(to: $0, heartRate: heartRate, number: count, at: now) }
                    }
                }
                await group.next()
                group.cancelAll()
                await peripheral.disconnectAll()
            }
        }
    }
}

/// The links a simulated peripheral has dropped or refused (for ``CommandTime/peripheralStarted(sent:dropped:)``).
final class DropCounter: Sendable {
    private let value = Atomic<Int>(0)
    var count: Int { value.load(ordering: .relaxed) }
    func add(_ links: Int) { value.add(links, ordering: .relaxed) }
}

extension Workout.Peripheral {
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// The notifications of one characteristic a fixture recorded, from its first sensor that has any: (seconds since
/// the first of them, bytes). Read whole before serving, so a bad file fails before the socket opens.
struct RecordedNotifications: Sendable {
    var notifications: [(Double, [UInt8])] = []

    init(path: String, characteristic: BluetoothUUID) throws {
        guard let wanted = characteristic.shortValue else {
            throw CommandFailure("The profile's measurement has no 16-bit UUID.")
        }
        let reader: FixtureReader
        do { reader = try FixtureReader(path: path) } catch { throw CommandFailure(error.description) }
        var sensor: Int?
        var first: Double?
        do {
            while let event = try reader.next() {
                guard case let .notification(index, uuid, bytes) = event.kind, uuid == wanted,
                    sensor == nil || sensor == index
                else { continue }
                sensor = index
                let start = first ?? event.seconds
                first = start
                notifications.append((event.seconds - start, bytes))
            }
        } catch {
            throw CommandFailure(error.description)
        }
        guard !notifications.isEmpty else {
            throw CommandFailure(
                "\(path) holds no 0x\(String(wanted, radix: 16, uppercase: true)) notifications for this profile.")
        }
    }
}

/// Returns when the process gets SIGINT or SIGTERM (``EndSignals``: none is lost, a second one ends the process).
func interrupted() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    let signals = EndSignals { _ in continuation.yield() }
    for await _ in stream { break }
    signals.cancel()
}
