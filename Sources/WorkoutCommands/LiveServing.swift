import ArgumentParser
import Foundation
import OpenHealthKit
import WorkoutWeb

/// `--serve [HOST:]PORT`: the live view in a browser, for `record`, a paced `replay` and `watch`.
struct ServeOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Also show the live view in a browser at http://HOST:PORT/ (HOST 127.0.0.1 unless given; another address needs the printed token).",
            valueName: "[HOST:]PORT"))
    var serve: String?

    /// The address, checked.
    func address() throws -> ServeAddress? {
        do { return try serve.map(ServeAddress.init(parsing:)) } catch let error as WebError {
            throw ValidationError("--serve: \(error.message)")
        }
    }

    /// Starts serving `display`'s frames (each snapshot the terminal draws) when asked to, and says where in one
    /// line with `http://` and `token=`; nil without `--serve`.
    ///
    /// - Throws: `WebError` in one sentence when the address cannot be listened on (a port in use).
    func start(
        _ display: LiveDisplay, control: @escaping @Sendable (LiveControl) async -> LiveControlOutcome
    ) async throws -> LiveServer? {
        guard let address = try address() else { return nil }
        let feed = LiveFeed()
        let server = LiveServer(address: address, feed: feed, control: control)
        try await server.start()
        display.publish = { feed.publish($0) }
        if address.isLoopback {
            print("Live view at \(server.url) (without the token it can be looked at but not controlled).")
        } else {
            print("Live view at \(server.url) (give this URL only to whom may look: the token is needed).")
            printQRCode(server.url)
        }
        fflush(nil)
        return server
    }
}

/// A URL that carries a token, as a QR code under its line for a tablet's or phone's camera; only on a terminal (a
/// pipe or a log gets the line alone).
func printQRCode(_ url: String) {
    guard isatty(STDOUT_FILENO) == 1, let code = QRCode(url) else { return }
    print(code.terminalLines().joined(separator: "\n"))
}
