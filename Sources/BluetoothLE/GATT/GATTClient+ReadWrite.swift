extension GATTClient {
    /// Reads a value with one Read Request: at most ATT_MTU − 1 bytes.
    ///
    /// Core 5.3 Vol 3 Part G §4.8.1 (Read Characteristic Value).
    public func readValue(handle: UInt16) async throws -> [UInt8] {
        try await request(ATTReadRequest(handle: handle), expecting: ATTReadResponse.self).value
    }

    /// Reads a value of any length: a Read Request, then Read Blob Requests while each part fills
    /// the PDU. A server that answers the first blob with Attribute Not Long or Invalid Offset
    /// ends the value.
    ///
    /// Core 5.3 Vol 3 Part G §4.8.3 (Read Long Characteristic Values).
    public func readLongValue(handle: UInt16) async throws -> [UInt8] {
        var value = try await readValue(handle: handle)
        var partSize = Int(mtu) - 1
        while value.count >= partSize, value.count < 512 {
            let part: [UInt8]
            do {
                part = try await request(
                    ATTReadBlobRequest(handle: handle, offset: UInt16(value.count)),
                    expecting: ATTReadBlobResponse.self
                ).value
            } catch ATTErrorCode.attributeNotLong {
                break
            } catch ATTErrorCode.invalidOffset {
                break
            }
            value += part
            if part.count < partSize { break }
            partSize = Int(mtu) - 1
        }
        return value
    }

    /// Writes a value with a Write Request and waits for the Write Response.
    ///
    /// - Throws: ``GATTClientError/Code/valueTooLong`` if the value exceeds ATT_MTU − 3 bytes,
    ///   ``ATTErrorResponse`` if the server refuses.
    ///
    /// Core 5.3 Vol 3 Part G §4.9.3 (Write Characteristic Value).
    public func writeValue(_ value: [UInt8], handle: UInt16) async throws {
        try checkFits(value)
        _ = try await request(ATTWriteRequest(handle: handle, value: value), expecting: ATTWriteResponse.self)
    }

    /// Writes a value with a Write Command: no response, no error report.
    ///
    /// Core 5.3 Vol 3 Part G §4.9.1 (Write Without Response).
    public func writeValueWithoutResponse(_ value: [UInt8], handle: UInt16) async throws {
        try checkFits(value)
        try await sendUnsolicited(ATTWriteCommand(handle: handle, value: value).encode())
    }

    /// Writes a characteristic's Client Characteristic Configuration descriptor.
    ///
    /// Core 5.3 Vol 3 Part G §4.12.3 (Write Characteristic Descriptors) and §3.3.3.3.
    public func writeConfiguration(
        _ configuration: GATTClientCharacteristicConfiguration, descriptorHandle: UInt16
    ) async throws {
        try await writeValue(configuration.bytes, handle: descriptorHandle)
    }

    /// Subscribes to a characteristic: finds its CCCD and enables notifications (or, if the
    /// characteristic cannot notify, indications). Values then arrive on ``notifications`` with
    /// the characteristic's ``GATTCharacteristic/valueHandle``.
    ///
    /// Subscriptions are not kept by an unbonded peripheral: subscribe again after every reconnect.
    ///
    /// - Parameters:
    ///   - characteristic: the characteristic to subscribe to.
    ///   - descriptors: the characteristic's descriptors if already discovered; otherwise
    ///     they are discovered first.
    /// - Returns: the configuration written.
    /// - Throws: ``GATTClientError/Code/notSubscribable`` if the characteristic has neither
    ///   property or no CCCD.
    ///
    /// Core 5.3 Vol 3 Part G §4.10 and §4.11 (notifications and indications).
    @discardableResult
    public func subscribe(
        to characteristic: GATTCharacteristic, descriptors: [GATTDescriptor]? = nil
    ) async throws -> GATTClientCharacteristicConfiguration {
        let configuration: GATTClientCharacteristicConfiguration
        if characteristic.properties.contains(.notify) {
            configuration = .notification
        } else if characteristic.properties.contains(.indicate) {
            configuration = .indication
        } else {
            throw GATTClientError(.notSubscribable, "\(characteristic) can neither notify nor indicate")
        }
        try await writeConfiguration(
            configuration, descriptorHandle: try await cccdHandle(of: characteristic, descriptors))
        return configuration
    }

    /// Disables notifications and indications of a characteristic by writing `00 00` to its CCCD.
    public func unsubscribe(from characteristic: GATTCharacteristic, descriptors: [GATTDescriptor]? = nil) async throws
    {
        try await writeConfiguration([], descriptorHandle: try await cccdHandle(of: characteristic, descriptors))
    }

    private func cccdHandle(of characteristic: GATTCharacteristic, _ known: [GATTDescriptor]?) async throws -> UInt16 {
        let descriptors: [GATTDescriptor]
        if let known { descriptors = known } else { descriptors = try await discoverDescriptors(of: characteristic) }
        guard let cccd = descriptors.first(where: { $0.uuid == .clientCharacteristicConfiguration }) else {
            throw GATTClientError(
                .notSubscribable, "\(characteristic) has no Client Characteristic Configuration descriptor")
        }
        return cccd.handle
    }

    private func checkFits(_ value: [UInt8]) throws {
        let maximum = Int(mtu) - 3
        guard value.count <= maximum else {
            throw GATTClientError(
                .valueTooLong, "a \(value.count)-byte value does not fit ATT_MTU \(mtu) (at most \(maximum) bytes)")
        }
    }
}
