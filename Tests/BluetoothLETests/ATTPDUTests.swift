import BluetoothLE
import ByteCoding
import TestSupport
import Testing

/// Decodes `wire` as `P`, compares with `value`, re-encodes, and checks the dispatcher agrees.
func expectRoundTrip<P: ATTProtocolDataUnit>(
    _ wire: [UInt8], _ value: P, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let decoded = try P(bytes: wire)
    #expect(decoded == value, sourceLocation: sourceLocation)
    #expect(value.encode() == wire, sourceLocation: sourceLocation)
    let dispatched = try ATTPDU.decode(wire)
    #expect(dispatched.opcode == P.opcode, sourceLocation: sourceLocation)
    #expect(dispatched.encode() == wire, sourceLocation: sourceLocation)
}

@Suite struct ATTPDUTests {
    // Exchange MTU with MTU 104, from an iPhone PacketLogger trace quoted in
    // PureSwift/Bluetooth Tests/BluetoothTests/GATTTests.swift (testDiscoverPrimaryServices).
    @Test func exchangeMTU() throws {
        try expectRoundTrip(bytes("02 68 00"), ATTExchangeMTURequest(clientRxMTU: 104))
        try expectRoundTrip(bytes("03 68 00"), ATTExchangeMTUResponse(serverRxMTU: 104))
        try expectRoundTrip(bytes("02 05 02"), ATTExchangeMTURequest(clientRxMTU: 517))
        expectEveryTruncationThrows(bytes("02 68 00")) { b throws(DecodeError) in
            _ = try ATTExchangeMTURequest(bytes: b)
        }
        expectEveryTruncationThrows(bytes("03 68 00")) { b throws(DecodeError) in
            _ = try ATTExchangeMTUResponse(bytes: b)
        }
        #expect(throws: DecodeError.self) { try ATTExchangeMTURequest(bytes: bytes("02 68 00 00")) }
        #expect(ATTMTU.negotiated(client: 517, server: 104) == 104)
        #expect(ATTMTU.negotiated(client: 517, server: 5) == 23)
    }

    // Error Response "Attribute Not Found" ending primary service discovery; same PacketLogger
    // trace (PureSwift/Bluetooth GATTTests.swift): `01 10 43 00 0A`.
    @Test func errorResponse() throws {
        let wire = bytes("01 10 43 00 0A")
        let value = ATTErrorResponse(
            requestOpcode: .readByGroupTypeRequest, handle: 0x0043, errorCode: .attributeNotFound)
        try expectRoundTrip(wire, value)
        expectEveryTruncationThrows(wire) { b throws(DecodeError) in _ = try ATTErrorResponse(bytes: b) }
        #expect(ATTErrorCode(0x80).isApplicationError)
        #expect(ATTErrorCode.attributeNotFound.description == "Attribute Not Found (0x0A)")
        #expect(ATTErrorCode(0x42).description == "Reserved (0x42)")
    }

    @Test func errorCodeMatchesThrownErrorResponse() {
        let error: any Error = ATTErrorResponse(requestOpcode: .readRequest, handle: 3, errorCode: .readNotPermitted)
        var matched = false
        switch error {
        case ATTErrorCode.readNotPermitted: matched = true
        default: break
        }
        #expect(matched)
    }

    // Primary service discovery, first page: PacketLogger trace in PureSwift/Bluetooth GATTTests.swift.
    // Request: start 0x0001, end 0xFFFF, «Primary Service».
    // Response: length 6; 0x0001–0x0005 = 1800 (GAP); 0x0006–0x0009 = 1801 (GATT).
    @Test func readByGroupType16() throws {
        try expectRoundTrip(
            bytes("10 01 00 FF FF 00 28"),
            ATTReadByGroupTypeRequest(startingHandle: 1, endingHandle: 0xFFFF, groupType: .primaryService))
        let response = bytes("11 06 01 00 05 00 00 18 06 00 09 00 01 18")
        try expectRoundTrip(
            response,
            ATTReadByGroupTypeResponse(entries: [
                .init(handle: 0x0001, endGroupHandle: 0x0005, value: [0x00, 0x18]),
                .init(handle: 0x0006, endGroupHandle: 0x0009, value: [0x01, 0x18]),
            ]))
        expectEveryTruncationThrows(bytes("10 01 00 FF FF 00 28")) { b throws(DecodeError) in
            _ = try ATTReadByGroupTypeRequest(bytes: b)
        }
        expectEveryTruncationThrows(response, except: [8]) { b throws(DecodeError) in
            _ = try ATTReadByGroupTypeResponse(bytes: b)
        }
    }

    // Second page of the same trace: two 128-bit (Apple) services, length 0x14 = 20.
    // 0x000A–0x000E D0611E78-BBB4-4591-A5F8-487910AE4366; 0x000F–0x0013 9FA480E0-4967-4542-9390-D343DC5D04AE.
    @Test func readByGroupType128() throws {
        let wire = bytes(
            """
            11 14 0A 00 0E 00 66 43 AE 10 79 48 F8 A5 91 45 B4 BB 78 1E 61 D0
            0F 00 13 00 AE 04 5D DC 43 D3 90 93 42 45 67 49 E0 80 A4 9F
            """)
        let response = try ATTReadByGroupTypeResponse(bytes: wire)
        #expect(response.encode() == wire)
        let uuids = try response.entries.map { e throws(DecodeError) in try BluetoothUUID(littleEndianBytes: e.value) }
        #expect(
            uuids == [
                BluetoothUUID("D0611E78-BBB4-4591-A5F8-487910AE4366")!,
                BluetoothUUID("9FA480E0-4967-4542-9390-D343DC5D04AE")!,
            ])
        #expect(response.entries.map(\.endGroupHandle) == [0x000E, 0x0013])
    }

    @Test func readByGroupTypeRejectsBadLengths() {
        // length 3 is shorter than two handles; length 0 would loop forever if accepted
        #expect(throws: DecodeError("Read By Group Type entry length 3 is shorter than two handles", at: 1)) {
            try ATTReadByGroupTypeResponse(bytes: bytes("11 03 01 00 05"))
        }
        #expect(throws: DecodeError.self) { try ATTReadByGroupTypeResponse(bytes: bytes("11 00")) }
        // a UUID of 3 bytes in the request
        #expect(throws: DecodeError.self) { try ATTReadByGroupTypeRequest(bytes: bytes("10 01 00 FF FF 00 28 00")) }
    }

    // Characteristic discovery in the Heart Rate service of a Polar H7, handles as reported by
    // gatttool in cal-id/Polar-H7-Pi README.md (notifications on 0x0012, CCCD at 0x0013).
    // Request: 0x0010–0x0016, «Characteristic»; Response: length 7,
    // 0x0011 = {props 0x10 notify, value 0x0012, 2A37}; 0x0014 = {props 0x02 read, value 0x0015, 2A38}.
    @Test func readByType() throws {
        try expectRoundTrip(
            bytes("08 10 00 16 00 03 28"),
            ATTReadByTypeRequest(startingHandle: 0x0010, endingHandle: 0x0016, attributeType: .characteristic))
        let wire = bytes("09 07 11 00 10 12 00 37 2A 14 00 02 15 00 38 2A")
        try expectRoundTrip(
            wire,
            ATTReadByTypeResponse(entries: [
                .init(handle: 0x0011, value: bytes("10 12 00 37 2A")),
                .init(handle: 0x0014, value: bytes("02 15 00 38 2A")),
            ]))
        expectEveryTruncationThrows(wire, except: [9]) { b throws(DecodeError) in
            _ = try ATTReadByTypeResponse(bytes: b)
        }
        expectEveryTruncationThrows(bytes("08 10 00 16 00 03 28")) { b throws(DecodeError) in
            _ = try ATTReadByTypeRequest(bytes: b)
        }
        #expect(throws: DecodeError.self) { try ATTReadByTypeResponse(bytes: bytes("09 01 11")) }
    }

    @Test func readByTypeRequest128() throws {
        let uuid = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
        let value = ATTReadByTypeRequest(startingHandle: 1, endingHandle: 0xFFFF, attributeType: uuid)
        let wire = value.encode()
        #expect(wire.count == 21)
        #expect(Array(wire[5...]) == Array(uuid.bigEndianBytes.reversed()))
        try expectRoundTrip(wire, value)
    }

    // Descriptor discovery after the Polar H7 HR Measurement value: 0x0013 is the CCCD (2902).
    @Test func findInformation16() throws {
        try expectRoundTrip(
            bytes("04 13 00 13 00"), ATTFindInformationRequest(startingHandle: 0x13, endingHandle: 0x13))
        let wire = bytes("05 01 13 00 02 29")
        try expectRoundTrip(
            wire,
            ATTFindInformationResponse(
                format: .uuid16, entries: [.init(handle: 0x0013, type: .clientCharacteristicConfiguration)]))
        expectEveryTruncationThrows(wire) { b throws(DecodeError) in _ = try ATTFindInformationResponse(bytes: b) }
        expectEveryTruncationThrows(bytes("04 13 00 13 00")) { b throws(DecodeError) in
            _ = try ATTFindInformationRequest(bytes: b)
        }
    }

    @Test func findInformation128() throws {
        let uuid = BluetoothUUID("9FA480E0-4967-4542-9390-D343DC5D04AE")!
        let wire = bytes("05 02 20 00 AE 04 5D DC 43 D3 90 93 42 45 67 49 E0 80 A4 9F")
        try expectRoundTrip(
            wire, ATTFindInformationResponse(format: .uuid128, entries: [.init(handle: 0x20, type: uuid)]))
        // a 16-bit alias listed in a 128-bit response is written in full
        let alias = ATTFindInformationResponse(
            format: .uuid128, entries: [.init(handle: 1, type: BluetoothUUID(0x2902))])
        #expect(alias.encode() == bytes("05 02 01 00 FB 34 9B 5F 80 00 00 80 00 10 00 00 02 29 00 00"))
        #expect(try ATTFindInformationResponse(bytes: alias.encode()).entries[0].type == BluetoothUUID(0x2902))
        expectEveryTruncationThrows(wire) { b throws(DecodeError) in _ = try ATTFindInformationResponse(bytes: b) }
        #expect(throws: DecodeError("Find Information format 0x03 is neither 1 nor 2", at: 1)) {
            try ATTFindInformationResponse(bytes: bytes("05 03 01 00 02 29"))
        }
    }

    @Test func readAndBlob() throws {
        try expectRoundTrip(bytes("0A 15 00"), ATTReadRequest(handle: 0x15))
        try expectRoundTrip(bytes("0B 01"), ATTReadResponse(value: [0x01]))
        try expectRoundTrip(bytes("0B"), ATTReadResponse(value: []))
        try expectRoundTrip(bytes("0C 03 00 16 00"), ATTReadBlobRequest(handle: 3, offset: 22))
        try expectRoundTrip(bytes("0D 41 42"), ATTReadBlobResponse(value: [0x41, 0x42]))
        expectEveryTruncationThrows(bytes("0A 15 00")) { b throws(DecodeError) in _ = try ATTReadRequest(bytes: b) }
        expectEveryTruncationThrows(bytes("0C 03 00 16 00")) { b throws(DecodeError) in
            _ = try ATTReadBlobRequest(bytes: b)
        }
        expectEveryTruncationThrows(bytes("0B 01"), except: [1]) { b throws(DecodeError) in
            _ = try ATTReadResponse(bytes: b)
        }
    }

    // Subscribing to the Polar H7 HR Measurement: gatttool `char-write-req 0x0013 0100`
    // (cal-id/Polar-H7-Pi README.md) is the Write Request `12 13 00 01 00`.
    @Test func writes() throws {
        try expectRoundTrip(bytes("12 13 00 01 00"), ATTWriteRequest(handle: 0x13, value: [1, 0]))
        try expectRoundTrip(bytes("13"), ATTWriteResponse())
        // A Write Command from a public Android capture (StackOverflow q. 40103752): handle 0x0018,
        // value 68 26 04 00 11 0A 10 00 BD 16.
        try expectRoundTrip(
            bytes("52 18 00 68 26 04 00 11 0A 10 00 BD 16"),
            ATTWriteCommand(handle: 0x18, value: bytes("68 26 04 00 11 0A 10 00 BD 16")))
        expectEveryTruncationThrows(bytes("12 13 00 01 00"), except: [3, 4]) { b throws(DecodeError) in
            _ = try ATTWriteRequest(bytes: b)
        }
        expectEveryTruncationThrows(bytes("13")) { b throws(DecodeError) in _ = try ATTWriteResponse(bytes: b) }
        #expect(throws: DecodeError.self) { try ATTWriteResponse(bytes: bytes("13 00")) }
    }

    // Polar H7 notifications `06 3c` and `16 3c 11 04` on handle 0x0012 (cal-id/Polar-H7-Pi
    // README.md): flags 0x16 = contact + RR present, 60 bpm, RR 0x0411.
    @Test func handleValueNotificationAndIndication() throws {
        try expectRoundTrip(bytes("1B 12 00 06 3C"), ATTHandleValueNotification(handle: 0x12, value: [0x06, 0x3C]))
        try expectRoundTrip(
            bytes("1B 12 00 16 3C 11 04"),
            ATTHandleValueNotification(handle: 0x12, value: [0x16, 0x3C, 0x11, 0x04]))
        try expectRoundTrip(bytes("1D 2A 00 01"), ATTHandleValueIndication(handle: 0x2A, value: [0x01]))
        try expectRoundTrip(bytes("1E"), ATTHandleValueConfirmation())
        expectEveryTruncationThrows(bytes("1B 12 00 06 3C"), except: [3, 4]) { b throws(DecodeError) in
            _ = try ATTHandleValueNotification(bytes: b)
        }
        expectEveryTruncationThrows(bytes("1D 2A 00 01"), except: [3]) { b throws(DecodeError) in
            _ = try ATTHandleValueIndication(bytes: b)
        }
    }

    @Test func wrongOpcodeIsRejected() {
        #expect(throws: DecodeError("ATT opcode 0x0B, expected 0x0A", at: 0)) {
            try ATTReadRequest(bytes: bytes("0B 00 00"))
        }
    }

    @Test func dispatcherKeepsUnknownOpcodes() throws {
        // Find By Type Value Request, not modelled: kept raw
        let wire = bytes("06 01 00 FF FF 00 28 0D 18")
        #expect(
            try ATTPDU.decode(wire) == .unknown(opcode: .findByTypeValueRequest, parameters: Array(wire.dropFirst())))
        #expect(try ATTPDU.decode(wire).encode() == wire)
        #expect(throws: DecodeError("expected an ATT opcode, found an empty PDU", at: 0)) { try ATTPDU.decode([]) }
    }

    @Test func opcodeKinds() {
        #expect(ATTOpcode.writeCommand.kind == .command)
        #expect(ATTOpcode.signedWriteCommand.hasAuthenticationSignature)
        #expect(ATTOpcode.readRequest.kind == .request)
        #expect(ATTOpcode(0x30).kind == .request)
        #expect(ATTOpcode(0x70).kind == .command)
        #expect(ATTOpcode.errorResponse.kind == .response)
        #expect(ATTOpcode.handleValueIndication.kind == .indication)
        #expect(ATTOpcode.multipleHandleValueNotification.kind == .notification)
        #expect(ATTOpcode.readByGroupTypeRequest.responseOpcode == .readByGroupTypeResponse)
        #expect(ATTOpcode.writeCommand.responseOpcode == nil)
    }

    /// 100 000 seeded random PDUs through the dispatcher: every one decodes or throws, none traps,
    /// and whatever decodes re-encodes to the same bytes.
    @Test func randomPDUsNeverTrap() {
        var rng = SeededGenerator(seed: 0xB1E_A77)
        var decoded = 0
        for _ in 0 ..< 100_000 {
            let length = Int.random(in: 0 ... 24, using: &rng)
            var pdu = (0 ..< length).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
            // bias the opcode towards the ones that have decoders
            if !pdu.isEmpty, Bool.random(using: &rng) { pdu[0] = UInt8.random(in: 0x01 ... 0x1E, using: &rng) }
            if let pdu2 = try? ATTPDU.decode(pdu) {
                decoded += 1
                #expect(pdu2.encode() == pdu)
            }
        }
        #expect(decoded > 10_000)
    }
}
