import ArgumentParser
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
                """
        )

        @Option(help: ArgumentHelp("heart-rate or cycling-power.", valueName: "PROFILE"))
        var profile: String

        @Option(help: ArgumentHelp("The socket path to listen at.", valueName: "PATH"))
        var listen: String

        @Option(help: ArgumentHelp("Replay recorded notifications (not yet supported).", valueName: "FILE"))
        var fixture: String?

        @Option(help: ArgumentHelp("The advertised name.", valueName: "NAME"))
        var name: String?

        func validate() throws {
            guard PeripheralProfile.Kind(rawValue: profile) != nil else {
                throw ValidationError("--profile must be heart-rate or cycling-power, not '\(profile)'.")
            }
        }

        func run() async throws {
            try await reportingErrors {
                if fixture != nil {
                    throw CommandFailure("--fixture is not yet supported: replaying recorded notifications arrives with the fixture format.")
                }
                var profile = PeripheralProfile.kind(PeripheralProfile.Kind(rawValue: self.profile)!)
                if let name { profile.name = name }
                let listener = try UnixListener(path: listen)
                defer { listener.close() }
                let peripheral = SimulatedPeripheral(profile: profile)
                let interval = profile.interval
                print("Simulated \(profile.kind.rawValue) sensor '\(profile.name)' at unix:\(listen); Ctrl-C stops it.")
                fflush(nil)
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await interrupted() }
                    group.addTask {
                        while let bearer = try? await listener.accept() {
                            Task { await peripheral.serve(bearer) }
                        }
                    }
                    group.addTask {
                        let clock = ContinuousClock()
                        var next = clock.now
                        while !Task.isCancelled {
                            next = next.advanced(by: interval)
                            do { try await clock.sleep(until: next) } catch { return }
                            await peripheral.step()
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
