import BluetoothLE
import Synchronization
import Testing

/// Notifications handed straight to a handler (``GATTClient/NotificationDelivery/handler``): held until a handler
/// is set, oldest dropped past the buffer limit, then delivered in arrival order with no stream.
@Suite(.timeLimit(.minutes(1))) struct GATTClientHandlerTests {
    final class Collected: Sendable {
        let values = Mutex<[GATTNotification]>([])
        func append(_ notification: GATTNotification) { values.withLock { $0.append(notification) } }
        var all: [GATTNotification] { values.withLock { $0 } }
    }

    @Test func heldNotificationsReachTheHandlerFirstThenLiveOnesInOrder() async throws {
        let script: [ScriptedBearer.Step] = [
            // → Read Request 0x0015 (Body Sensor Location)
            .send(bytes("0A 15 00")),
            // ← three notifications 0x0012 (60, 61, 62 bpm) before the response: held, no handler yet
            .receive(bytes("1B 12 00 00 3C")),
            .receive(bytes("1B 12 00 00 3D")),
            .receive(bytes("1B 12 00 00 3E")),
            // ← Read Response: 01 (chest)
            .receive(bytes("0B 01")),
            // → Read Request 0x0015 again, once the handler is set
            .send(bytes("0A 15 00")),
            // ← a notification (63 bpm) before the response: straight to the handler
            .receive(bytes("1B 12 00 00 3F")),
            .receive(bytes("0B 01")),
        ]
        let collected = Collected()
        try await withScriptedClient(script, notificationBufferLimit: 2, notificationDelivery: .handler) {
            client, _ async throws in
            #expect(try await client.readValue(handle: 0x15) == [0x01])
            // The stream is not used in this mode: it has already finished.
            var iterator = client.notifications.makeAsyncIterator()
            #expect(await iterator.next() == nil)
            await client.deliverNotifications(to: collected.append)
            // A limit of 2 kept the newest two held notifications (61 and 62 bpm); 60 was dropped.
            #expect(collected.all.map(\.value) == [[0x00, 0x3D], [0x00, 0x3E]])
            #expect(try await client.readValue(handle: 0x15) == [0x01])
            // The response completes the read after the notification that preceded it was handled.
            #expect(collected.all.map(\.value) == [[0x00, 0x3D], [0x00, 0x3E], [0x00, 0x3F]])
        }
    }

    @Test func streamModeIgnoresAHandler() async throws {
        let script: [ScriptedBearer.Step] = [.receive(bytes("1B 12 00 00 3C"))]
        let collected = Collected()
        try await withScriptedClient(script) { client, _ async throws in
            await client.deliverNotifications(to: collected.append)
            var iterator = client.notifications.makeAsyncIterator()
            #expect(await iterator.next() == GATTNotification(handle: 0x12, value: [0x00, 0x3C]))
            #expect(collected.all.isEmpty)
        }
    }
}
