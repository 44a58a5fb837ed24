import BluetoothLE
import ByteCoding
import TestSupport
import Testing

/// The client's correlation rules, event by event, without async.
@Suite struct GATTClientStateMachineTests {
    @Test func responseCompletesOutstandingRequest() {
        let machine = MachineHarness()
        #expect(machine.requestWillBeSent(bytes("0A 15 00")))
        // a second request must wait (Core 5.3 Vol 3 Part F §3.3.2: one outstanding request)
        #expect(!machine.requestWillBeSent(bytes("0A 1D 00")))
        #expect(machine.received(bytes("0B 01")) == [.completeRequest(bytes("0B 01"))])
        #expect(machine.canSendRequest)
        // then a late duplicate is unexpected
        #expect(
            machine.received(bytes("0B 01")) == [
                .log(.unexpectedPDU(bytes("0B 01"), reason: "response with no request outstanding"))
            ])
    }

    @Test func onlyRequestsOccupyTheSlot() {
        let machine = MachineHarness()
        #expect(!machine.requestWillBeSent(bytes("52 18 00 01")))  // a command
        #expect(!machine.requestWillBeSent(bytes("1E")))  // a confirmation
        #expect(!machine.requestWillBeSent([]))
        #expect(machine.canSendRequest)
        #expect(machine.requestWillBeSent(bytes("12 13 00 01 00")))
        machine.requestWasAbandoned()
        #expect(machine.canSendRequest)
    }

    @Test func errorResponseMatchesByRequestOpcode() {
        let machine = MachineHarness()
        _ = machine.requestWillBeSent(bytes("08 10 00 15 00 03 28"))
        let other = bytes("01 0A 12 00 02")
        #expect(
            machine.received(other) == [
                .log(.unexpectedPDU(other, reason: "Error Response for 0x0A, outstanding request is 0x08"))
            ])
        #expect(!machine.canSendRequest)
        #expect(
            machine.received(bytes("01 08 15 00 0A")) == [
                .failRequest(
                    ATTErrorResponse(requestOpcode: .readByTypeRequest, handle: 0x15, errorCode: .attributeNotFound))
            ])
    }

    @Test func exchangeMTUSetsTheMTU() {
        let machine = MachineHarness(clientRxMTU: 247)
        #expect(machine.mtu == 23)
        _ = machine.requestWillBeSent(ATTExchangeMTURequest(clientRxMTU: 247).encode())
        _ = machine.received(bytes("03 05 02"))
        #expect(machine.mtu == 247)
        // a peer exchange (it acts as a client too) lowers it again
        #expect(machine.received(bytes("02 9E 00")).first == .send(bytes("03 F7 00")))
        #expect(machine.mtu == 158)
        // and a bogus tiny MTU never goes below 23
        _ = machine.received(bytes("02 05 00"))
        #expect(machine.mtu == 23)
    }

    @Test func indicationIsConfirmedEvenWhenMalformed() {
        let machine = MachineHarness()
        #expect(
            machine.received(bytes("1D 0E 00 01 00 FF FF")) == [
                .send([0x1E]),
                .deliver(GATTNotification(handle: 0x0E, value: [0x01, 0x00, 0xFF, 0xFF], isIndication: true)),
            ])
        let actions = machine.received(bytes("1D 0E"))
        #expect(actions.count == 2)
        #expect(actions.last == .send([0x1E]))
    }

    @Test func peerRequestsGetOneAnswer() {
        let machine = MachineHarness()
        // a pending request of our own does not change how the peer's request is answered
        _ = machine.requestWillBeSent(bytes("0A 15 00"))
        #expect(machine.received(bytes("08 01 00 FF FF 00 2A")).first == .send(bytes("01 08 00 00 06")))
        #expect(
            machine.received(bytes("02 17")) == [
                .log(.malformedPDU(bytes("02 17"), DecodeError("expected 2 bytes for client Rx MTU, found 1", at: 1))),
                .send(bytes("01 02 00 00 04")),
            ])
        #expect(machine.received(bytes("D2 03 00 01 02")) == [.log(.ignoredCommand(.signedWriteCommand))])
        #expect(!machine.canSendRequest)
    }

    @Test func malformedResponseFailsRequest() {
        let machine = MachineHarness()
        _ = machine.requestWillBeSent(bytes("04 13 00 13 00"))
        let actions = machine.received(bytes("05 03 13 00 02 29"))
        #expect(actions.count == 2)
        if case .failRequestWithMalformedResponse(let error) = actions.last {
            #expect(error.offset == 1)
        } else {
            Issue.record("expected a failed request, got \(actions)")
        }
        #expect(machine.canSendRequest)
    }

    /// 100 000 seeded random PDUs: every one yields actions, none traps, and a peer request is
    /// always answered exactly once.
    @Test func randomInboundPDUsNeverTrap() {
        var rng = SeededGenerator(seed: 42)
        let machine = MachineHarness()
        for i in 0 ..< 100_000 {
            if i % 7 == 0 { _ = machine.requestWillBeSent(bytes("0A 15 00")) }
            let pdu = (0 ..< Int.random(in: 0 ... 12, using: &rng)).map { _ in UInt8.random(in: 0 ... 255, using: &rng)
            }
            let actions = machine.received(pdu)
            #expect(!actions.isEmpty)
            if let first = pdu.first, ATTOpcode(first).kind == .request {
                #expect(actions.filter { if case .send = $0 { true } else { false } }.count == 1)
            }
        }
    }
}

/// A reference wrapper so the mutating state machine can be called inside `#expect`.
final class MachineHarness {
    var machine: GATTClientStateMachine
    init(clientRxMTU: UInt16 = 517) { machine = GATTClientStateMachine(clientRxMTU: clientRxMTU) }
    func requestWillBeSent(_ pdu: [UInt8]) -> Bool { machine.requestWillBeSent(pdu) }
    func requestWasAbandoned() { machine.requestWasAbandoned() }
    func received(_ pdu: [UInt8]) -> [GATTClientStateMachine.Action] { machine.received(pdu) }
    var canSendRequest: Bool { machine.canSendRequest }
    var mtu: UInt16 { machine.mtu }
}
