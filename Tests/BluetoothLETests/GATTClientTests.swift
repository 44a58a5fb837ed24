import BluetoothLE
import ByteCoding
import Testing

/// The GATT client against scripted bearers. Each script lists the exact PDUs, with the decoded
/// exchange in comments. Handles follow a Polar H7 (HR Measurement value 0x0012, its CCCD 0x0013,
/// per gatttool output in cal-id/Polar-H7-Pi README.md); the other handles are illustrative.
@Suite(.timeLimit(.minutes(1))) struct GATTClientTests {
    /// Primary service discovery of the strap: 180D 0x0010–0x0015, 180A 0x0016–0x001A,
    /// 180F 0x001B–0x001E, then Attribute Not Found from 0x001F.
    static let serviceDiscovery: [ScriptedBearer.Step] = [
        // → Read By Group Type Request 0x0001–0xFFFF «Primary Service»
        .send(bytes("10 01 00 FF FF 00 28")),
        // ← Read By Group Type Response, length 6: 0x0010–0x0015 180D; 0x0016–0x001A 180A; 0x001B–0x001E 180F
        .receive(bytes("11 06 10 00 15 00 0D 18 16 00 1A 00 0A 18 1B 00 1E 00 0F 18")),
        // → Read By Group Type Request 0x001F–0xFFFF «Primary Service»
        .send(bytes("10 1F 00 FF FF 00 28")),
        // ← Error Response to 0x10, handle 0x001F: Attribute Not Found
        .receive(bytes("01 10 1F 00 0A")),
    ]

    static let strapServices = [
        GATTService(uuid: .heartRate, startHandle: 0x10, endHandle: 0x15),
        GATTService(uuid: .deviceInformation, startHandle: 0x16, endHandle: 0x1A),
        GATTService(uuid: .battery, startHandle: 0x1B, endHandle: 0x1E),
    ]

    @Test func fullDiscoveryOfHeartRateStrap() async throws {
        var script: [ScriptedBearer.Step] = [
            // → Exchange MTU Request, client Rx MTU 517
            .send(bytes("02 05 02")),
            // ← Exchange MTU Response, server Rx MTU 23 (the H7 keeps the default)
            .receive(bytes("03 17 00")),
        ]
        script += Self.serviceDiscovery
        script += [
            // → Read By Type Request 0x0010–0x0015 «Characteristic»
            .send(bytes("08 10 00 15 00 03 28")),
            // ← Read By Type Response, length 7: 0x0011 {notify, value 0x0012, 2A37};
            //   0x0014 {read, value 0x0015, 2A38}
            .receive(bytes("09 07 11 00 10 12 00 37 2A 14 00 02 15 00 38 2A")),
            // → Read By Type Request 0x0015–0x0015 «Characteristic»
            .send(bytes("08 15 00 15 00 03 28")),
            // ← Error Response to 0x08, handle 0x0015: Attribute Not Found
            .receive(bytes("01 08 15 00 0A")),
            // → Read By Type Request 0x001B–0x001E «Characteristic» (Battery)
            .send(bytes("08 1B 00 1E 00 03 28")),
            // ← Read By Type Response, length 7: 0x001C {read+notify, value 0x001D, 2A19}
            .receive(bytes("09 07 1C 00 12 1D 00 19 2A")),
            // → Read By Type Request 0x001D–0x001E «Characteristic»
            .send(bytes("08 1D 00 1E 00 03 28")),
            // ← Error Response: Attribute Not Found
            .receive(bytes("01 08 1D 00 0A")),
            // → Find Information Request 0x0013–0x0013 (descriptors of 2A37)
            .send(bytes("04 13 00 13 00")),
            // ← Find Information Response, 16-bit: 0x0013 = 2902 (CCCD)
            .receive(bytes("05 01 13 00 02 29")),
            // → Write Request 0x0013 = 01 00 (enable notifications)
            .send(bytes("12 13 00 01 00")),
            // ← Write Response
            .receive(bytes("13")),
            // → Read Request 0x001D (Battery Level)
            .send(bytes("0A 1D 00")),
            // ← Read Response 0x5A = 90 %
            .receive(bytes("0B 5A")),
            // ← Notification 0x0012: 06 3C (contact, 60 bpm) — Polar H7, cal-id/Polar-H7-Pi README.md
            .receive(bytes("1B 12 00 06 3C")),
            // ← Notification 0x0012: 16 3C 11 04 (contact, 60 bpm, RR 0x0411/1024 s)
            .receive(bytes("1B 12 00 16 3C 11 04")),
        ]
        try await withScriptedClient(script) { client, _ async throws in
            #expect(try await client.exchangeMTU() == 23)
            let services = try await client.discoverPrimaryServices()
            #expect(services == Self.strapServices)

            let hrCharacteristics = try await client.discoverCharacteristics(of: services[0])
            #expect(
                hrCharacteristics == [
                    GATTCharacteristic(
                        uuid: .heartRateMeasurement, properties: .notify, declarationHandle: 0x11,
                        valueHandle: 0x12, endHandle: 0x13),
                    GATTCharacteristic(
                        uuid: .bodySensorLocation, properties: .read, declarationHandle: 0x14,
                        valueHandle: 0x15, endHandle: 0x15),
                ])
            let battery = try await client.discoverCharacteristics(of: services[2])
            #expect(battery.map(\.uuid) == [.batteryLevel])
            #expect(battery.first?.properties == [.read, .notify])

            let measurement = hrCharacteristics[0]
            #expect(
                try await client.discoverDescriptors(of: measurement) == [
                    GATTDescriptor(uuid: .clientCharacteristicConfiguration, handle: 0x13)
                ])
            // descriptors already known: no second discovery
            let written = try await client.subscribe(
                to: measurement, descriptors: [GATTDescriptor(uuid: .clientCharacteristicConfiguration, handle: 0x13)])
            #expect(written == .notification)
            #expect(try await client.readValue(handle: 0x1D) == [0x5A])

            var received: [GATTNotification] = []
            for await notification in client.notifications {
                received.append(notification)
                if received.count == 2 { break }
            }
            #expect(
                received == [
                    GATTNotification(handle: 0x12, value: [0x06, 0x3C]),
                    GATTNotification(handle: 0x12, value: [0x16, 0x3C, 0x11, 0x04]),
                ])
        }
    }

    @Test func notificationInterleavedWithDiscovery() async throws {
        let script: [ScriptedBearer.Step] = [
            // → Read By Group Type Request 0x0001–0xFFFF «Primary Service»
            .send(bytes("10 01 00 FF FF 00 28")),
            // ← Notification 0x0012: 06 3C, before the response
            .receive(bytes("1B 12 00 06 3C")),
            // ← Read By Group Type Response (as in serviceDiscovery)
            .receive(bytes("11 06 10 00 15 00 0D 18 16 00 1A 00 0A 18 1B 00 1E 00 0F 18")),
            // → Read By Group Type Request 0x001F–0xFFFF
            .send(bytes("10 1F 00 FF FF 00 28")),
            // ← Notification 0x0012: 16 3C 11 04, again before the response
            .receive(bytes("1B 12 00 16 3C 11 04")),
            // ← Error Response: Attribute Not Found
            .receive(bytes("01 10 1F 00 0A")),
        ]
        try await withScriptedClient(script) { client, _ async throws in
            #expect(try await client.discoverPrimaryServices() == Self.strapServices)
            var iterator = client.notifications.makeAsyncIterator()
            #expect(await iterator.next() == GATTNotification(handle: 0x12, value: [0x06, 0x3C]))
            #expect(await iterator.next() == GATTNotification(handle: 0x12, value: [0x16, 0x3C, 0x11, 0x04]))
        }
    }

    @Test func indicationIsConfirmedBeforeDelivery() async throws {
        let script: [ScriptedBearer.Step] = [
            // ← Handle Value Indication 0x000E (Service Changed): 0x0001–0xFFFF
            .receive(bytes("1D 0E 00 01 00 FF FF")),
            // → Handle Value Confirmation
            .send(bytes("1E")),
        ]
        try await withScriptedClient(script) { client, bearer async throws in
            var iterator = client.notifications.makeAsyncIterator()
            #expect(
                await iterator.next()
                    == GATTNotification(handle: 0x0E, value: [0x01, 0x00, 0xFF, 0xFF], isIndication: true))
            // the confirmation went out before the indication was delivered
            #expect(await bearer.isDrained)
        }
    }

    @Test func peerRequestsAreAnswered() async throws {
        let log = LogRecorder()
        let script: [ScriptedBearer.Step] = [
            // ← Read Request 0x0003 (the peripheral reads our Device Name)
            .receive(bytes("0A 03 00")),
            // → Error Response to 0x0A, handle 0x0000: Request Not Supported
            .send(bytes("01 0A 00 00 06")),
            // ← Exchange MTU Request, client Rx MTU 185
            .receive(bytes("02 B9 00")),
            // → Exchange MTU Response, server Rx MTU 517
            .send(bytes("03 05 02")),
            // ← Write Command 0x0003 = 41 (ignored: commands get no answer)
            .receive(bytes("52 03 00 41")),
            // ← Find By Type Value Request (not modelled, still a request)
            .receive(bytes("06 01 00 FF FF 00 28 0D 18")),
            // → Error Response to 0x06, handle 0x0000: Request Not Supported
            .send(bytes("01 06 00 00 06")),
            // ← Read Request with a missing handle byte: Request Not Supported all the same
            .receive(bytes("0A 03")),
            // → Error Response to 0x0A: Request Not Supported
            .send(bytes("01 0A 00 00 06")),
        ]
        try await withScriptedClient(script, log: log) { client, bearer async throws in
            await bearer.waitUntilDrained()
            #expect(await client.mtu == 185)
        }
        #expect(log.events.contains(.ignoredCommand(.writeCommand)))
        #expect(log.events.filter { if case .answeredPeerRequest = $0 { true } else { false } }.count == 4)
    }

    @Test func errorResponseIsThrown() async throws {
        let script: [ScriptedBearer.Step] = [
            // → Read Request 0x0012 (HR Measurement is notify-only)
            .send(bytes("0A 12 00")),
            // ← Error Response to 0x0A, handle 0x0012: Read Not Permitted
            .receive(bytes("01 0A 12 00 02")),
            // → Write Request 0x0015 = 01
            .send(bytes("12 15 00 01")),
            // ← Error Response to 0x12, handle 0x0015: Write Not Permitted
            .receive(bytes("01 12 15 00 03")),
        ]
        try await withScriptedClient(script) { client, _ async throws in
            await #expect(
                throws: ATTErrorResponse(requestOpcode: .readRequest, handle: 0x12, errorCode: .readNotPermitted)
            ) {
                try await client.readValue(handle: 0x12)
            }
            do {
                try await client.writeValue([0x01], handle: 0x15)
                Issue.record("write succeeded")
            } catch ATTErrorCode.writeNotPermitted {
                // expected
            }
        }
    }

    @Test func malformedAndUnexpectedPDUsAreSkipped() async throws {
        let log = LogRecorder()
        let script: [ScriptedBearer.Step] = [
            // ← Notification cut after one handle byte
            .receive(bytes("1B 12")),
            // ← Write Response with no request outstanding
            .receive(bytes("13")),
            // ← empty PDU
            .receive([]),
            // → Read Request 0x0015
            .send(bytes("0A 15 00")),
            // ← Error Response for another request (Write): not ours, skipped
            .receive(bytes("01 12 15 00 03")),
            // ← Read Blob Response: wrong opcode, skipped
            .receive(bytes("0D 01")),
            // ← Read Response 01 (Body Sensor Location: chest)
            .receive(bytes("0B 01")),
            // ← Indication cut short: logged, still confirmed
            .receive(bytes("1D 0E")),
            // → Handle Value Confirmation
            .send(bytes("1E")),
            // ← a good notification
            .receive(bytes("1B 12 00 06 3C")),
        ]
        try await withScriptedClient(script, log: log) { client, bearer async throws in
            await bearer.waitUntil(stepsDone: 3)
            #expect(try await client.readValue(handle: 0x15) == [0x01])
            var iterator = client.notifications.makeAsyncIterator()
            #expect(await iterator.next() == GATTNotification(handle: 0x12, value: [0x06, 0x3C]))
        }
        let events = log.events
        #expect(events.count == 6)
        #expect(events.filter { if case .malformedPDU = $0 { true } else { false } }.count == 3)
        #expect(events.filter { if case .unexpectedPDU = $0 { true } else { false } }.count == 3)
    }

    @Test func malformedResponseFailsTheRequest() async throws {
        let script: [ScriptedBearer.Step] = [
            // → Read By Group Type Request 0x0001–0xFFFF
            .send(bytes("10 01 00 FF FF 00 28")),
            // ← Read By Group Type Response with length 6 but a 5-byte entry
            .receive(bytes("11 06 10 00 15 00 0D")),
            // → Read Request 0x0015: the client is still usable
            .send(bytes("0A 15 00")),
            // ← Read Response 01
            .receive(bytes("0B 01")),
        ]
        try await withScriptedClient(script) { client, _ async throws in
            do {
                _ = try await client.discoverPrimaryServices()
                Issue.record("discovery succeeded")
            } catch let error as GATTClientError {
                #expect(error.code == .malformedResponse)
                #expect(error.underlying is DecodeError)
            }
            #expect(try await client.readValue(handle: 0x15) == [0x01])
        }
    }

    @Test func discoveryThatDoesNotAdvanceIsRejected() async throws {
        let script: [ScriptedBearer.Step] = [
            // → Read By Group Type Request 0x0001–0xFFFF
            .send(bytes("10 01 00 FF FF 00 28")),
            // ← 0x0010–0x0015 180D
            .receive(bytes("11 06 10 00 15 00 0D 18")),
            // → Read By Group Type Request 0x0016–0xFFFF
            .send(bytes("10 16 00 FF FF 00 28")),
            // ← the same page again: 0x0010 is before 0x0016, so the client stops instead of looping
            .receive(bytes("11 06 10 00 15 00 0D 18")),
        ]
        try await withScriptedClient(script) { client, _ async throws in
            do {
                _ = try await client.discoverPrimaryServices()
                Issue.record("discovery succeeded")
            } catch let error as GATTClientError {
                #expect(error.code == .malformedResponse)
            }
        }
    }

    @Test func longReadUsesReadBlob() async throws {
        let name = Array("Polar H7 D7904C14 with a long name".utf8)  // 34 bytes
        let script: [ScriptedBearer.Step] = [
            // → Read Request 0x0003; ← first 22 bytes (ATT_MTU 23 − 1)
            .send(bytes("0A 03 00")), .receive([0x0B] + name[0 ..< 22]),
            // → Read Blob Request 0x0003 offset 22; ← remaining 12 bytes
            .send(bytes("0C 03 00 16 00")), .receive([0x0D] + name[22...]),
        ]
        try await withScriptedClient(script) { client, _ async throws in
            #expect(try await client.readLongValue(handle: 0x03) == name)
        }
    }

    @Test func concurrentRequestsAreSerialised() async throws {
        // Two reads of the same handle start together. Whichever goes first, the second may only be
        // sent after the first response: a second send while a response is due fails the script.
        let script: [ScriptedBearer.Step] = [
            .send(bytes("0A 15 00")), .receive(bytes("0B 01")),
            .send(bytes("0A 15 00")), .receive(bytes("0B 02")),
            .send(bytes("0A 15 00")), .receive(bytes("0B 03")),
        ]
        try await withScriptedClient(script) { client, _ async throws in
            async let first = client.readValue(handle: 0x15)
            async let second = client.readValue(handle: 0x15)
            async let third = client.readValue(handle: 0x15)
            let values = try await [first, second, third]
            #expect(values.sorted { $0[0] < $1[0] } == [[0x01], [0x02], [0x03]])
        }
    }

    @Test func subscribeWithoutCCCDOrProperty() async throws {
        let script: [ScriptedBearer.Step] = [
            // → Find Information Request 0x0016–0x0017; ← 0x0016 = 2901 (user description), no CCCD
            .send(bytes("04 16 00 17 00")), .receive(bytes("05 01 16 00 01 29")),
            // → Find Information Request 0x0017–0x0017; ← Attribute Not Found
            .send(bytes("04 17 00 17 00")), .receive(bytes("01 04 17 00 0A")),
        ]
        try await withScriptedClient(script) { client, _ async throws in
            let notifying = GATTCharacteristic(
                uuid: .batteryLevel, properties: [.read, .notify], declarationHandle: 0x14,
                valueHandle: 0x15, endHandle: 0x17)
            do {
                try await client.subscribe(to: notifying)
                Issue.record("subscribed without a CCCD")
            } catch let error as GATTClientError {
                #expect(error.code == .notSubscribable)
            }
            let readOnly = GATTCharacteristic(
                uuid: .bodySensorLocation, properties: .read, declarationHandle: 0x14,
                valueHandle: 0x15, endHandle: 0x15)
            await #expect(throws: GATTClientError.self) { try await client.subscribe(to: readOnly) }
        }
    }

    @Test func closingTheBearerFailsWaitingRequests() async throws {
        let bearer = ScriptedBearer([.send(bytes("0A 15 00"))])
        let client = GATTClient(bearer: bearer)
        async let running: Void = client.run()
        async let read = client.readValue(handle: 0x15)
        await bearer.waitUntilDrained()
        await bearer.close()
        do {
            _ = try await read
            Issue.record("read succeeded")
        } catch let error as GATTClientError {
            #expect(error.code == .bearerClosed)
        }
        do {
            try await running
            Issue.record("run() returned normally")
        } catch {
            #expect(error is ScriptedBearer.Closed)
        }
        // the stream has finished
        var iterator = client.notifications.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        await #expect(throws: GATTClientError.self) { try await client.readValue(handle: 1) }
    }

    @Test func writeWithoutResponseAndValueLength() async throws {
        let script: [ScriptedBearer.Step] = [
            // → Write Command 0x0018 = 68 26
            .send(bytes("52 18 00 68 26"))
        ]
        try await withScriptedClient(script) { client, _ async throws in
            try await client.writeValueWithoutResponse([0x68, 0x26], handle: 0x18)
            // 21 bytes do not fit ATT_MTU 23 (at most 20)
            await #expect(throws: GATTClientError.self) {
                try await client.writeValue(Array(repeating: 0, count: 21), handle: 0x18)
            }
        }
    }
}
