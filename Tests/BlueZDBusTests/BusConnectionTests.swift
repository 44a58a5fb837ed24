import Foundation
import TestSupport
import Testing

@testable import BlueZDBus

/// The connection's own life on a real `dbus-daemon`: it is torn down once however it ends (a second teardown
/// would unref sd-bus's freed bus and close its descriptors again, numbers another part of the process may hold
/// by then), and a call made after the end fails at once instead of waiting for a loop that is gone.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct BusConnectionTests {
    /// A call made on `connection` now, its outcome within 10 s of real time (a hung call fails the test, and its
    /// task is left behind rather than waited for).
    func callOutcome(_ connection: BusConnection) async throws -> Result<[DBusValue], DBusError> {
        let (outcomes, continuation) = AsyncStream.makeStream(of: Result<[DBusValue], DBusError>.self)
        Task {
            do throws(DBusError) {
                continuation.yield(
                    .success(
                        try await connection.call(
                            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")))
            } catch {
                continuation.yield(.failure(error))
            }
        }
        return try await withDeadline(seconds: 10, "a call to end") {
            for await outcome in outcomes { return outcome }
            throw FakeBlueZError("the wait for the call was cancelled")
        }
    }

    func waitUntilClosed(_ connection: BusConnection) async throws {
        try await withDeadline(seconds: 10, "the connection to close") {
            while !connection.isClosed { try await Task.sleep(for: .milliseconds(5)) }
        }
    }

    @Test func closingTwiceTearsTheBusDownOnceAndALaterCallFailsAtOnce() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        let connection = try BusConnection.connect(address: fake.address)
        #expect(try await callOutcome(connection).get().first?.string?.isEmpty == false, "the bus answers first")
        // Both usually reach the loop in one batch; the second must find the bus already gone.
        connection.close()
        connection.close()
        try await waitUntilClosed(connection)
        #expect(try await callOutcome(connection) == .failure(.disconnected))
        connection.close()
        #expect(try await callOutcome(connection) == .failure(.disconnected))
        #expect(connection.teardowns == 1)
    }

    @Test func aBusThatGoesAwayIsTornDownOnceAndACloseAfterwardsDoesNothing() async throws {
        let fake = try await FakeBlueZ()
        defer { fake.stop() }
        let connection = try BusConnection.connect(address: fake.address)
        #expect(try await callOutcome(connection).get().first?.string?.isEmpty == false, "the bus answers first")
        fake.killDaemon()
        try await waitUntilClosed(connection)
        connection.close()
        #expect(try await callOutcome(connection) == .failure(.disconnected))
        #expect(connection.teardowns == 1)
    }
}
