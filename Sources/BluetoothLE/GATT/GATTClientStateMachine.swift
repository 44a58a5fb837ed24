import ByteCoding

/// The synchronous core of the GATT client: request/response correlation, ATT_MTU, and the
/// handling of every PDU the peer may send while the client waits.
///
/// It performs no I/O and reads no clock. The ``GATTClient`` actor calls ``requestWillBeSent(_:)``
/// before it sends a request and ``received(_:)`` for every inbound PDU, then carries out the
/// returned ``Action``s in order, after swift-async-algorithms' `DebounceStateMachine`.
///
/// Rules it implements (Core 5.3 Vol 3 Part F):
/// - one request outstanding at a time; a response is matched by opcode, an Error Response by its
///   request opcode (§3.3.2, §3.4.1.1);
/// - notifications are delivered; indications are confirmed, then delivered (§3.4.7);
/// - a request from the peer gets exactly one answer: Exchange MTU gets an Exchange MTU Response,
///   every other request "Request Not Supported" with handle 0x0000, since the client hosts no
///   attribute server (§3.4.1.1, §3.4.2); commands are ignored;
/// - malformed and unexpected PDUs are logged and skipped; a malformed response fails the request
///   it answers, since the server will not send another.
public struct GATTClientStateMachine: Sendable {
    /// What the driver must do, in order, after an event.
    public enum Action: Hashable, Sendable {
        /// Send these bytes on the bearer (a confirmation or an answer to a peer request).
        case send([UInt8])
        /// Deliver a notification or (already confirmed) indication to subscribers.
        case deliver(GATTNotification)
        /// The outstanding request was answered; the bytes are a well-formed response PDU.
        case completeRequest([UInt8])
        /// The outstanding request was answered with an Error Response.
        case failRequest(ATTErrorResponse)
        /// The outstanding request was answered with a PDU of the right opcode that does not decode.
        case failRequestWithMalformedResponse(DecodeError)
        /// Report to the log handler.
        case log(GATTClientLogEvent)
    }

    /// The Rx MTU this client announces: the largest PDU it accepts.
    public let clientRxMTU: UInt16
    /// The bearer's current ATT_MTU: 23 until an exchange completes.
    public private(set) var mtu: UInt16 = ATTMTU.default
    /// The opcode of the request waiting for its response, if any.
    public private(set) var outstandingRequest: ATTOpcode?

    public init(clientRxMTU: UInt16 = ATTMTU.maximum) {
        self.clientRxMTU = max(ATTMTU.default, clientRxMTU)
    }

    /// Whether a new request may be sent now.
    public var canSendRequest: Bool { outstandingRequest == nil }

    /// Records that `request` is about to be sent.
    ///
    /// - Returns: `false` (and records nothing) if a request is already outstanding or `request` is
    ///   not a request PDU; the caller must wait for the outstanding response first.
    public mutating func requestWillBeSent(_ request: [UInt8]) -> Bool {
        guard outstandingRequest == nil, let first = request.first,
            ATTOpcode(first).responseOpcode != nil
        else { return false }
        outstandingRequest = ATTOpcode(first)
        return true
    }

    /// Forgets the outstanding request, for when sending it failed.
    public mutating func requestWasAbandoned() {
        outstandingRequest = nil
    }

    /// Handles one inbound PDU.
    public mutating func received(_ bytes: [UInt8]) -> [Action] {
        guard let first = bytes.first else {
            return [.log(.malformedPDU(bytes, DecodeError("expected an ATT opcode, found an empty PDU", at: 0)))]
        }
        let opcode = ATTOpcode(first)
        switch opcode.kind {
        case .notification:
            guard opcode == .handleValueNotification else {
                return [.log(.unexpectedPDU(bytes, reason: "Multiple Handle Value Notification was not enabled"))]
            }
            do throws(DecodeError) {
                let pdu = try ATTHandleValueNotification(bytes: bytes)
                return [.deliver(GATTNotification(handle: pdu.handle, value: pdu.value))]
            } catch {
                return [.log(.malformedPDU(bytes, error))]
            }
        case .indication:
            // The server waits for a confirmation whatever it sent, so confirm even a bad one.
            let confirmation = Action.send(ATTHandleValueConfirmation().encode())
            do throws(DecodeError) {
                let pdu = try ATTHandleValueIndication(bytes: bytes)
                return [
                    confirmation, .deliver(GATTNotification(handle: pdu.handle, value: pdu.value, isIndication: true)),
                ]
            } catch {
                return [.log(.malformedPDU(bytes, error)), confirmation]
            }
        case .response:
            return receivedResponse(opcode, bytes)
        case .request:
            return receivedPeerRequest(opcode, bytes)
        case .command:
            return [.log(.ignoredCommand(opcode))]
        case .confirmation:
            return [.log(.unexpectedPDU(bytes, reason: "confirmation received, but this client sends no indications"))]
        }
    }

    private mutating func receivedResponse(_ opcode: ATTOpcode, _ bytes: [UInt8]) -> [Action] {
        guard let outstanding = outstandingRequest else {
            return [.log(.unexpectedPDU(bytes, reason: "response with no request outstanding"))]
        }
        if opcode == .errorResponse {
            let error: ATTErrorResponse
            do throws(DecodeError) { error = try ATTErrorResponse(bytes: bytes) } catch {
                // An Error Response we cannot read still ends the transaction.
                outstandingRequest = nil
                return [.log(.malformedPDU(bytes, error)), .failRequestWithMalformedResponse(error)]
            }
            guard error.requestOpcode == outstanding else {
                return [
                    .log(
                        .unexpectedPDU(
                            bytes,
                            reason: "Error Response for \(error.requestOpcode), outstanding request is \(outstanding)"))
                ]
            }
            outstandingRequest = nil
            return [.failRequest(error)]
        }
        guard opcode == outstanding.responseOpcode else {
            return [
                .log(
                    .unexpectedPDU(
                        bytes, reason: "response \(opcode) does not answer outstanding request \(outstanding)"))
            ]
        }
        outstandingRequest = nil
        do throws(DecodeError) {
            let pdu = try ATTPDU.decode(bytes)
            if case .exchangeMTUResponse(let response) = pdu {
                mtu = ATTMTU.negotiated(client: clientRxMTU, server: response.serverRxMTU)
            }
            return [.completeRequest(bytes)]
        } catch {
            return [.log(.malformedPDU(bytes, error)), .failRequestWithMalformedResponse(error)]
        }
    }

    private mutating func receivedPeerRequest(_ opcode: ATTOpcode, _ bytes: [UInt8]) -> [Action] {
        let response: [UInt8]
        if opcode == .exchangeMTURequest {
            do throws(DecodeError) {
                let request = try ATTExchangeMTURequest(bytes: bytes)
                mtu = ATTMTU.negotiated(client: request.clientRxMTU, server: clientRxMTU)
                response = ATTExchangeMTUResponse(serverRxMTU: clientRxMTU).encode()
            } catch {
                let answer = ATTErrorResponse(requestOpcode: opcode, handle: 0, errorCode: .invalidPDU).encode()
                return [.log(.malformedPDU(bytes, error)), .send(answer)]
            }
        } else {
            response = ATTErrorResponse(requestOpcode: opcode, handle: 0, errorCode: .requestNotSupported).encode()
        }
        return [.send(response), .log(.answeredPeerRequest(request: opcode, response: response))]
    }
}
