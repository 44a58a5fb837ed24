import Foundation
import Hummingbird
import NIOCore

/// Listening with Hummingbird for the tool's two servers (the live view, the store's pages): start, the URL with its
/// token, and a failure to listen in one sentence.
enum WebListener {
    /// Runs `router` at `address`; returns the running server's task and the port it listens on once it does.
    ///
    /// - Throws: ``WebError`` with one sentence naming `what` and the address when it cannot listen (the port in use).
    static func start(
        _ router: Router<BasicRequestContext>, at address: ServeAddress, serving what: String, option: String
    ) async throws -> (Task<Void, any Error>, Int) {
        let (running, started) = AsyncStream.makeStream(of: Result<Int, any Error>.self)
        let application = Application(
            router: router,
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: nil),
            onServerRunning: { channel in started.yield(.success(channel.localAddress?.port ?? 0)) })
        let task = Task {
            do { try await application.run() } catch {
                started.yield(.failure(error))
                throw error
            }
            started.finish()
        }
        for await result in running {
            switch result {
            case .success(let port): return (task, port)
            case .failure(let error): throw describe(error, at: address, serving: what, option: option)
            }
        }
        throw WebError("\(what)'s server at \(address) stopped before it listened.")
    }

    /// The URL of `/` with the token (the port the system chose when asked for 0, once known).
    static func url(_ address: ServeAddress, port: Int?, token: String) -> String {
        let host =
            switch address.host {
            case "0.0.0.0", "::": ProcessInfo.processInfo.hostName
            case let host where host.contains(":"): "[\(host)]"
            case let host: host
            }
        return "http://\(host):\(port ?? address.port)/?token=\(token)"
    }

    /// The error as one sentence naming the address, and `option` where it says how to choose another.
    static func describe(
        _ error: any Error, at address: ServeAddress, serving what: String, option: String
    ) -> WebError {
        if let error = error as? IOError {
            switch error.errnoCode {
            case EADDRINUSE:
                let holder = PortHolder.find(port: address.port).map { " (\($0.name), pid \($0.pid))" } ?? ""
                return WebError(
                    "Port \(address.port) on \(address.host) is in use by another program\(holder); choose another with \(option)."
                )
            case EACCES:
                return WebError(
                    "Port \(address.port) needs privileges this user lacks; choose one above 1023 with \(option).")
            case EADDRNOTAVAIL:
                return WebError("\(address.host) is not an address of this machine; \(option) cannot listen on it.")
            default: break
            }
        }
        return WebError("\(what) cannot listen on \(address): \(error).")
    }
}
