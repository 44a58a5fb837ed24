import Foundation

/// Where the live view is served: `--serve [HOST:]PORT`. HOST defaults to 127.0.0.1; an IPv6 host is written in
/// brackets (`[::1]:8080`). Port 0 asks the system for a free port (the URL printed names it). OpenHealthKit.
public struct ServeAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String = "127.0.0.1", port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `[HOST:]PORT`.
    ///
    /// - Throws: ``WebError`` naming what is wrong (no port, a port out of range, an empty host).
    public init(parsing text: String) throws {
        var host = "127.0.0.1"
        var portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw WebError("'\(text)' is not [HOST:]PORT: an IPv6 host in brackets needs ':PORT' after it.")
            }
            host = String(text[text.index(after: text.startIndex) ..< close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { throw WebError("'\(text)' is not [HOST:]PORT: the host is empty.") }
        guard let port = Int(portText), (0 ... 65535).contains(port) else {
            throw WebError("'\(text)' is not [HOST:]PORT: the port must be a number from 0 to 65535.")
        }
        self.init(host: host, port: port)
    }

    /// Whether only this machine can reach it (127.0.0.0/8, ::1, localhost): then looking needs no token.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// A problem serving the live view, in one sentence. OpenHealthKit.
public struct WebError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
