import ArgumentParser
import BluetoothLE
import FitnessSensors
import BlueZTransport
import Dispatch
import Foundation

extension Workout {
    struct Peripheral: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a simulated BLE sensor on a Unix socket, until Ctrl-C.",
            discussion: """
                Serves a GATT heart-rate strap (HR + RR at 1 Hz, battery, device information) or power
                meter (power, crank and wheel revolutions at 4 Hz, counters that wrap) over an AF_UNIX
                SOCK_SEQPACKET socket, speaking the same ATT bytes as the real device. Anything that
                takes an address takes unix:PATH to reach it.

                Example:
                  workout peripheral --profile heart-rate --listen /tmp/strap.sock &
                  workout pair unix:/tmp/strap.sock
                  workout peripheral --profile cycling-power --listen /tmp/trainer.sock --dropout 60:10 --battery 15
                """
        )

        @Option(help: ArgumentHelp("heart-rate or cycling-power.", valueName: "PROFILE"))
        var profile: String

        @Option(help: ArgumentHelp("The socket path to listen at.", valueName: "PATH"))
        var listen: String

        @Option(help: ArgumentHelp("Serve the notifications a fixture recorded for this profile's measurement, at their recorded pace.",
                                   valueName: "FILE"))
        var fixture: String?

        @Option(help: ArgumentHelp("The advertised name.", valueName: "NAME"))
        var name: String?

        @Option(help: ArgumentHelp("At AT seconds, stop notifying and drop the links (refusing new ones) for SECONDS (repeatable).",
                                   valueName: "AT:SECONDS"))
        var dropout: [String] = []

        @Option(help: ArgumentHelp("The battery level to report, 0–100.", valueName: "PERCENT"))
        var battery: Int?

        @Option(help: ArgumentHelp("At AT seconds, report no skin contact for SECONDS (a strap; repeatable).", valueName: "AT:SECONDS"))
        var noContact: [String] = []

        @Option(help: ArgumentHelp("Send every Nth notification malformed (cut to one byte).", valueName: "N"))
        var malformedEvery: Int?

        /// The faults the options ask for.
        func faults() throws -> PeripheralFaults {
            var faults = PeripheralFaults()
            for text in dropout {
                guard let window = PeripheralFaults.Window(parsing: text) else {
                    throw ValidationError("--dropout takes AT:SECONDS (seconds from the start, then a duration above 0), not '\(text)'.")
                }
                faults.dropouts.append(window)
            }
            for text in noContact {
                guard let window = PeripheralFaults.Window(parsing: text) else {
                    throw ValidationError("--no-contact takes AT:SECONDS (seconds from the start, then a duration above 0), not '\(text)'.")
                }
                faults.noContact.append(window)
            }
            if let battery {
                guard (0 ... 100).contains(battery) else { throw ValidationError("--battery must be between 0 and 100, not \(battery).") }
                faults.batteryPercent = UInt8(battery)
            }
            if let malformedEvery {
                guard malformedEvery > 0 else { throw ValidationError("--malformed-every must be a positive number, not \(malformedEvery).") }
                faults.malformedEvery = malformedEvery
            }
            return faults
        }

        func validate() throws {
            guard PeripheralProfile.Kind(rawValue: profile) != nil else {
                throw ValidationError("--profile must be heart-rate or cycling-power, not '\(profile)'.")
            }
            _ = try faults()
        }

        func run() async throws {
            try await reportingErrors {
                var profile = PeripheralProfile.kind(PeripheralProfile.Kind(rawValue: self.profile)!)
                let recorded = try fixture.map { try RecordedNotifications(path: $0, characteristic: profile.measurement) }
                if let name { profile.name = name }
                let listener = try UnixListener(path: listen)
                defer { listener.close() }
                let faults = try faults()
                let peripheral = SimulatedPeripheral(profile: faults.applied(to: profile))
                let interval = profile.interval
                let measurement = profile.measurement
                let heartRate = profile.kind == .heartRate
                let clock = ContinuousClock()
                let started = clock.now
                let seconds: @Sendable () -> Double = { Self.seconds(started.duration(to: ContinuousClock.now)) }
                print("Simulated \(profile.kind.rawValue) sensor '\(profile.name)' at unix:\(listen); Ctrl-C stops it.")
                fflush(nil)
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await interrupted() }
                    group.addTask {
                        while let bearer = try? await listener.accept() {
                            // In a dropout the peripheral is out of reach: links are refused.
                            if faults.isDroppedOut(at: seconds()) { bearer.close(); continue }
                            Task { await peripheral.serve(bearer) }
                        }
                    }
                    group.addTask {
                        var number = 0
                        var droppedOut = false
                        /// Notifies `bytes` unless in a dropout (whose start drops every link), with the faults applied.
                        func notify(_ bytes: [UInt8]) async {
                            let now = seconds()
                            if faults.isDroppedOut(at: now) {
                                if !droppedOut { await peripheral.disconnectAll() }
                                droppedOut = true
                                return
                            }
                            droppedOut = false
                            number += 1
                            await peripheral.publish(faults.apply(to: bytes, heartRate: heartRate, number: number, at: now), of: measurement)
                        }
                        if let recorded {
                            // The recording, at its own pace, from the start again when it ends.
                            while !Task.isCancelled {
                                let start = clock.now
                                for (seconds, bytes) in recorded.notifications {
                                    do { try await clock.sleep(until: start.advanced(by: .milliseconds(Int64(seconds * 1000)))) } catch { return }
                                    await notify(bytes)
                                }
                                do { try await clock.sleep(for: interval) } catch { return }
                            }
                        }
                        var next = clock.now
                        while !Task.isCancelled {
                            next = next.advanced(by: interval)
                            do { try await clock.sleep(until: next) } catch { return }
                            let now = seconds()
                            if faults.isDroppedOut(at: now) {
                                if !droppedOut { await peripheral.disconnectAll() }
                                droppedOut = true
                                continue
                            }
                            droppedOut = false
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
                guard case let .notification(index, uuid, bytes) = event.kind, uuid == wanted, sensor == nil || sensor == index else { continue }
                sensor = index
                let start = first ?? event.seconds
                first = start
                notifications.append((event.seconds - start, bytes))
            }
        } catch {
            throw CommandFailure(error.description)
        }
        guard !notifications.isEmpty else {
            throw CommandFailure("\(path) holds no 0x\(String(wanted, radix: 16, uppercase: true)) notifications for this profile.")
        }
    }
}

/// Returns when the process gets SIGINT or SIGTERM.
func interrupted() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    var sources: [DispatchSourceSignal] = []
    for signalNumber in [SIGINT, SIGTERM] {
        signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signalNumber)
        source.setEventHandler { continuation.yield() }
        source.resume()
        sources.append(source)
    }
    for await _ in stream { break }
    for source in sources { source.cancel() }
}
