import BlueZTransport
import Foundation
import Testing

/// A listener removes its socket file when it closes, once, and only while the path still names its own socket:
/// a listener closed twice, or late, never removes the file of the one that has since taken its path (a simulated
/// peripheral started again at the same path, a second store's mirroring listener).
@Suite struct ListenerFileTests {
    func temporaryPath() throws -> (directory: String, path: String) {
        let directory = NSTemporaryDirectory() + "ohk-listener-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return (directory, directory + "/listener.sock")
    }

    @Test func aSeqPacketListenerRemovesOnlyItsOwnFile() throws {
        let (directory, path) = try temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try UnixListener(path: path)
        first.close()
        #expect(!FileManager.default.fileExists(atPath: path), "closing removes the file")
        let second = try UnixListener(path: path)
        first.close()
        #expect(FileManager.default.fileExists(atPath: path), "a second close of the first leaves the second's file")
        // A listener replaces the socket file at its path (a peripheral started again); the one it replaced, closed
        // afterwards, leaves the new file.
        let third = try UnixListener(path: path)
        second.close()
        #expect(FileManager.default.fileExists(atPath: path), "closing the replaced listener leaves the new one's file")
        third.close()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aStreamListenerClosedTwiceLeavesTheNextOnesFile() throws {
        let (directory, path) = try temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try UnixStreamListener(path: path)
        first.close()
        #expect(!FileManager.default.fileExists(atPath: path), "closing removes the file")
        let second = try UnixStreamListener(path: path)
        first.close()
        #expect(FileManager.default.fileExists(atPath: path), "a second close of the first leaves the second's file")
        second.close()
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
