import BluetoothLE
import TestSupport
import Testing

/// The transaction timeout, on a manual clock: no test sleeps.
@Suite(.timeLimit(.minutes(1))) struct GATTClientTimeoutTests {
    @Test func unansweredRequestFailsTheBearerAfter30Seconds() async throws {
        let clock = ManualClock()
        let bearer = ScriptedBearer([
            // → Read Request 0x0015, never answered
            .send(bytes("0A 15 00"))
        ])
        let client = GATTClient(bearer: bearer, transactionTimeout: .init(clock: clock))
        async let running: Void = client.run()
        async let read = client.readValue(handle: 0x15)

        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(29))
        #expect(await client.isBusy)
        clock.advance(by: .seconds(1))
        do {
            _ = try await read
            Issue.record("read succeeded")
        } catch let error as GATTClientError {
            #expect(error.code == .transactionTimeout)
        }
        // the bearer may not be used again (Core 5.3 Vol 3 Part F §3.3.3)
        do {
            _ = try await client.readValue(handle: 0x15)
            Issue.record("a request was sent after the timeout")
        } catch let error as GATTClientError {
            #expect(error.code == .transactionTimeout)
        }
        #expect(await bearer.isDrained)
        #expect(await bearer.failures == [])
        await bearer.close()
        do { try await running } catch {}
    }

    @Test func answeredRequestsCancelTheirTimers() async throws {
        let clock = ManualClock()
        let script: [ScriptedBearer.Step] = [
            .send(bytes("0A 15 00")), .receive(bytes("0B 01")),
            .send(bytes("0A 1D 00")), .receive(bytes("0B 5A")),
        ]
        let bearer = ScriptedBearer(script)
        let client = GATTClient(bearer: bearer, transactionTimeout: .init(clock: clock))
        async let running: Void = client.run()
        #expect(try await client.readValue(handle: 0x15) == [0x01])
        #expect(try await client.readValue(handle: 0x1D) == [0x5A])
        // cancelled timers leave the clock
        while clock.sleeperCount > 0 { await Task.yield() }
        clock.advance(by: .seconds(60))
        #expect(await !client.isBusy)
        #expect(await bearer.isDrained)
        await bearer.close()
        do { try await running } catch {}
    }
}
