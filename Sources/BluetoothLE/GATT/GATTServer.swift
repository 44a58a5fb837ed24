import ByteCoding

/// A pure ATT server over a ``GATTDatabase``: request bytes in, response bytes out.
///
/// It answers the requests a GATT client needs (Exchange MTU, Find Information, Read By Type,
/// Read By Group Type, Read, Read Blob, Write, Write Command) and builds notifications and
/// indications for subscribed characteristics. It performs no I/O; a simulated peripheral feeds
/// it the PDUs from its bearer and sends back what it returns.
///
/// ```swift
/// var server = GATTServer(database: GATTDatabase(services: [heartRate]))
/// if let response = server.handle(request: pdu) { try await bearer.send(response) }
/// if let update = server.updateValue([0x06, 0x3C], of: .heartRateMeasurement) { try await bearer.send(update) }
/// ```
///
/// Core 5.3 Vol 3 Part F §3.4 (ATT PDUs) and Part G §4 (the server side of the GATT procedures).
public struct GATTServer: Sendable {
    public private(set) var database: GATTDatabase
    /// The Rx MTU this server announces.
    public let serverRxMTU: UInt16
    /// The bearer's current ATT_MTU.
    public private(set) var mtu: UInt16 = ATTMTU.default
    /// Whether an indication was sent and not yet confirmed; no other may be sent until it is
    /// (Core 5.3 Vol 3 Part F §3.4.7.2).
    public private(set) var isIndicationPending = false

    public init(database: GATTDatabase, serverRxMTU: UInt16 = ATTMTU.maximum) {
        self.database = database
        self.serverRxMTU = max(ATTMTU.default, serverRxMTU)
    }

    // MARK: - Values and subscriptions

    /// The current value of the first characteristic with this UUID.
    public func value(of characteristic: BluetoothUUID) -> [UInt8]? {
        database.characteristic(characteristic).flatMap { database.attribute(at: $0.valueHandle)?.value }
    }

    /// What the client has enabled in the characteristic's CCCD (empty if it has none).
    public func configuration(of characteristic: BluetoothUUID) -> GATTClientCharacteristicConfiguration {
        guard let handle = database.characteristic(characteristic)?.cccdHandle,
            let value = database.attribute(at: handle)?.value, value.count == 2
        else { return [] }
        return GATTClientCharacteristicConfiguration(rawValue: UInt16(value[0]) | UInt16(value[1]) << 8)
    }

    /// Sets a characteristic's value and returns the PDU to send to the client, if any: a
    /// notification if it enabled notifications, else an indication if it enabled indications
    /// and none is pending. The value is cut to ATT_MTU − 3 bytes in the PDU.
    ///
    /// - Returns: `nil` if the characteristic does not exist, is not subscribed, or an indication
    ///   is still awaiting its confirmation.
    public mutating func updateValue(_ value: [UInt8], of characteristic: BluetoothUUID) -> [UInt8]? {
        guard let entry = database.characteristic(characteristic) else { return nil }
        database.attributes[Int(entry.valueHandle) - 1].value = value
        let enabled = configuration(of: characteristic)
        let part = Array(value.prefix(Int(mtu) - 3))
        if enabled.contains(.notification), entry.properties.contains(.notify) {
            return ATTHandleValueNotification(handle: entry.valueHandle, value: part).encode()
        }
        if enabled.contains(.indication), entry.properties.contains(.indicate), !isIndicationPending {
            isIndicationPending = true
            return ATTHandleValueIndication(handle: entry.valueHandle, value: part).encode()
        }
        return nil
    }

    // MARK: - Requests

    /// Answers one PDU from the client.
    ///
    /// - Returns: the response or Error Response to a request; `nil` for commands, confirmations
    ///   and anything that is not a request (Core 5.3 Vol 3 Part F §3.4.1.1: unsupported requests
    ///   get Request Not Supported, unsupported commands are ignored).
    public mutating func handle(request bytes: [UInt8]) -> [UInt8]? {
        guard let first = bytes.first else { return nil }
        let opcode = ATTOpcode(first)
        switch opcode.kind {
        case .command:
            if opcode == .writeCommand, let command = try? ATTWriteCommand(bytes: bytes) {
                _ = write(command.value, to: command.handle, withResponse: false)
            }
            return nil
        case .confirmation:
            isIndicationPending = false
            return nil
        case .response, .notification, .indication:
            return nil
        case .request:
            break
        }
        let pdu: ATTPDU
        do throws(DecodeError) { pdu = try ATTPDU.decode(bytes) } catch {
            return errorResponse(opcode, 0, .invalidPDU)
        }
        switch pdu {
        case .exchangeMTURequest(let request):
            mtu = ATTMTU.negotiated(client: request.clientRxMTU, server: serverRxMTU)
            return ATTExchangeMTUResponse(serverRxMTU: serverRxMTU).encode()
        case .findInformationRequest(let request):
            return findInformation(request)
        case .readByTypeRequest(let request):
            return readByType(request)
        case .readByGroupTypeRequest(let request):
            return readByGroupType(request)
        case .readRequest(let request):
            return read(request.handle, offset: 0, opcode: opcode)
        case .readBlobRequest(let request):
            return read(request.handle, offset: Int(request.offset), opcode: opcode)
        case .writeRequest(let request):
            if let code = write(request.value, to: request.handle, withResponse: true) {
                return errorResponse(opcode, request.handle, code)
            }
            return ATTWriteResponse().encode()
        default:
            return errorResponse(opcode, 0, .requestNotSupported)
        }
    }

    private func errorResponse(_ opcode: ATTOpcode, _ handle: UInt16, _ code: ATTErrorCode) -> [UInt8] {
        ATTErrorResponse(requestOpcode: opcode, handle: handle, errorCode: code).encode()
    }

    /// Attributes in `start...end`, or the Error Response owed for a bad range (Invalid Handle,
    /// Core 5.3 Vol 3 Part F §3.4.3.1).
    private func attributes(_ start: UInt16, _ end: UInt16) -> ArraySlice<GATTDatabase.Attribute>? {
        guard start != 0, start <= end else { return nil }
        let lower = min(Int(start) - 1, database.attributes.count)
        let upper = min(Int(end), database.attributes.count)
        return database.attributes[lower ..< upper]
    }

    /// Core 5.3 Vol 3 Part F §3.4.3.1–2: all entries share the first entry's UUID width.
    private func findInformation(_ request: ATTFindInformationRequest) -> [UInt8] {
        let opcode = ATTFindInformationRequest.opcode
        guard let range = attributes(request.startingHandle, request.endingHandle) else {
            return errorResponse(opcode, request.startingHandle, .invalidHandle)
        }
        guard let first = range.first else { return errorResponse(opcode, request.startingHandle, .attributeNotFound) }
        let format: ATTFindInformationResponse.Format = first.type.isShortForm ? .uuid16 : .uuid128
        let capacity = (Int(mtu) - 2) / (2 + format.uuidWidth)
        let entries = range.prefix { $0.type.isShortForm == first.type.isShortForm }.prefix(capacity)
            .map { ATTFindInformationResponse.Entry(handle: $0.handle, type: $0.type) }
        return ATTFindInformationResponse(format: format, entries: entries).encode()
    }

    /// Core 5.3 Vol 3 Part F §3.4.4.1–2: values of the first entry's length, each cut to
    /// min(ATT_MTU − 4, 253) bytes, as many as fit.
    private func readByType(_ request: ATTReadByTypeRequest) -> [UInt8] {
        let opcode = ATTReadByTypeRequest.opcode
        guard let range = attributes(request.startingHandle, request.endingHandle) else {
            return errorResponse(opcode, request.startingHandle, .invalidHandle)
        }
        let matching = range.filter { $0.type == request.attributeType }
        guard let first = matching.first else {
            return errorResponse(opcode, request.startingHandle, .attributeNotFound)
        }
        guard first.isReadable else { return errorResponse(opcode, first.handle, .readNotPermitted) }
        let length = min(first.value.count, Int(mtu) - 4, 253)
        var entries: [ATTReadByTypeResponse.Entry] = []
        var size = 2
        for attribute in matching {
            // after a truncated first value, or at a value of another length, the list ends
            let sameLength = attribute.value.count == first.value.count && first.value.count == length
            guard attribute.handle == first.handle || (attribute.isReadable && sameLength),
                size + 2 + length <= Int(mtu)
            else { break }
            entries.append(.init(handle: attribute.handle, value: Array(attribute.value.prefix(length))))
            size += 2 + length
        }
        return ATTReadByTypeResponse(entries: entries).encode()
    }

    /// Core 5.3 Vol 3 Part F §3.4.4.9–10; only «Primary Service» and «Secondary Service» group.
    private func readByGroupType(_ request: ATTReadByGroupTypeRequest) -> [UInt8] {
        let opcode = ATTReadByGroupTypeRequest.opcode
        guard let range = attributes(request.startingHandle, request.endingHandle) else {
            return errorResponse(opcode, request.startingHandle, .invalidHandle)
        }
        guard request.groupType == .primaryService || request.groupType == .secondaryService else {
            return errorResponse(opcode, request.startingHandle, .unsupportedGroupType)
        }
        let matching = range.filter { $0.type == request.groupType }
        guard let first = matching.first else {
            return errorResponse(opcode, request.startingHandle, .attributeNotFound)
        }
        let length = min(first.value.count, Int(mtu) - 6, 251)
        var entries: [ATTReadByGroupTypeResponse.Entry] = []
        var size = 2
        for attribute in matching {
            guard attribute.value.count == first.value.count, size + 4 + length <= Int(mtu),
                let end = database.groupEnd(of: attribute.handle)
            else { break }
            entries.append(
                .init(handle: attribute.handle, endGroupHandle: end, value: Array(attribute.value.prefix(length))))
            size += 4 + length
        }
        return ATTReadByGroupTypeResponse(entries: entries).encode()
    }

    /// Core 5.3 Vol 3 Part F §3.4.4.3–6.
    private func read(_ handle: UInt16, offset: Int, opcode: ATTOpcode) -> [UInt8] {
        guard let attribute = database.attribute(at: handle) else {
            return errorResponse(opcode, handle, .invalidHandle)
        }
        guard attribute.isReadable else { return errorResponse(opcode, handle, .readNotPermitted) }
        guard offset <= attribute.value.count else { return errorResponse(opcode, handle, .invalidOffset) }
        let part = Array(attribute.value[offset...].prefix(Int(mtu) - 1))
        return opcode == .readRequest
            ? ATTReadResponse(value: part).encode() : ATTReadBlobResponse(value: part).encode()
    }

    /// Writes a value, returning the error code to report if the write is refused
    /// (Core 5.3 Vol 3 Part F §3.4.5; CCCD length per Part G §3.3.3.3).
    private mutating func write(_ value: [UInt8], to handle: UInt16, withResponse: Bool) -> ATTErrorCode? {
        guard let attribute = database.attribute(at: handle) else { return .invalidHandle }
        guard withResponse ? attribute.isWritable : attribute.isWritableWithoutResponse else {
            return .writeNotPermitted
        }
        if attribute.type == .clientCharacteristicConfiguration, value.count != 2 {
            return .invalidAttributeValueLength
        }
        if let owner = database.characteristic(owning: handle), owner.valueHandle == handle,
            let validate = owner.validateWrite, let code = validate(value)
        {
            return code
        }
        database.attributes[Int(handle) - 1].value = value
        return nil
    }
}
