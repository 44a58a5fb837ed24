import ByteCoding

extension GATTClient {
    /// Exchanges MTUs with the server (at most once per connection) and returns the new ATT_MTU.
    ///
    /// Core 5.3 Vol 3 Part G §4.3.1 (Exchange MTU) and Part F §3.4.2.
    @discardableResult
    public func exchangeMTU() async throws -> UInt16 {
        let rxMTU = ATTExchangeMTURequest(clientRxMTU: clientRxMTU)
        _ = try await request(rxMTU, expecting: ATTExchangeMTUResponse.self)
        return mtu
    }

    /// The Rx MTU this client announces.
    public var clientRxMTU: UInt16 { machineClientRxMTU }

    /// Discovers every primary service: Read By Group Type «Primary Service» from 0x0001, page by
    /// page, until the server answers Attribute Not Found or the last group ends at 0xFFFF.
    ///
    /// - Throws: ``ATTErrorResponse`` for any other error, ``GATTClientError`` if a page is
    ///   malformed or does not advance.
    ///
    /// Core 5.3 Vol 3 Part G §4.4.1 (Discover All Primary Services).
    public func discoverPrimaryServices() async throws -> [GATTService] {
        var services: [GATTService] = []
        var start: UInt16 = 0x0001
        while true {
            let page: ATTReadByGroupTypeResponse
            do {
                page = try await request(
                    ATTReadByGroupTypeRequest(startingHandle: start, endingHandle: 0xFFFF, groupType: .primaryService),
                    expecting: ATTReadByGroupTypeResponse.self)
            } catch ATTErrorCode.attributeNotFound {
                return services
            }
            for entry in page.entries {
                guard entry.handle >= start, entry.endGroupHandle >= entry.handle else {
                    throw GATTClientError(
                        .malformedResponse,
                        "service group 0x\(hex(entry.handle))–0x\(hex(entry.endGroupHandle)) is outside 0x\(hex(start))–0xFFFF"
                    )
                }
                let uuid: BluetoothUUID
                do throws(DecodeError) { uuid = try BluetoothUUID(littleEndianBytes: entry.value) } catch {
                    throw GATTClientError(
                        .malformedResponse, "service UUID at 0x\(hex(entry.handle))", underlying: error)
                }
                services.append(GATTService(uuid: uuid, startHandle: entry.handle, endHandle: entry.endGroupHandle))
                start = entry.endGroupHandle
            }
            if start == 0xFFFF { return services }
            start += 1
        }
    }

    /// Discovers the characteristics of a service: Read By Type «Characteristic» over the service's
    /// handles, page by page, until Attribute Not Found or the end of the service.
    ///
    /// Each characteristic's ``GATTCharacteristic/endHandle`` is the handle before the next
    /// declaration, or the service's end handle for the last one.
    ///
    /// Core 5.3 Vol 3 Part G §4.6.1 (Discover All Characteristics of a Service).
    public func discoverCharacteristics(of service: GATTService) async throws -> [GATTCharacteristic] {
        var found: [(handle: UInt16, declaration: GATTCharacteristicDeclaration)] = []
        var start = service.startHandle
        pages: while start <= service.endHandle {
            let page: ATTReadByTypeResponse
            do {
                page = try await request(
                    ATTReadByTypeRequest(
                        startingHandle: start, endingHandle: service.endHandle, attributeType: .characteristic),
                    expecting: ATTReadByTypeResponse.self)
            } catch ATTErrorCode.attributeNotFound {
                break pages
            }
            for entry in page.entries {
                guard entry.handle >= start, entry.handle <= service.endHandle else {
                    throw GATTClientError(
                        .malformedResponse,
                        "characteristic declaration 0x\(hex(entry.handle)) is outside 0x\(hex(start))–0x\(hex(service.endHandle))"
                    )
                }
                let declaration: GATTCharacteristicDeclaration
                do throws(DecodeError) { declaration = try GATTCharacteristicDeclaration(bytes: entry.value) } catch {
                    throw GATTClientError(
                        .malformedResponse, "characteristic declaration at 0x\(hex(entry.handle))", underlying: error)
                }
                found.append((entry.handle, declaration))
                start = entry.handle
            }
            if start == 0xFFFF { break }
            start += 1
        }
        return found.indices.map { i in
            let end = i + 1 < found.count ? found[i + 1].handle - 1 : service.endHandle
            let (handle, declaration) = found[i]
            return GATTCharacteristic(
                uuid: declaration.uuid, properties: declaration.properties,
                declarationHandle: handle, valueHandle: declaration.valueHandle, endHandle: end)
        }
    }

    /// Discovers the descriptors of a characteristic: Find Information over the handles after its
    /// value, up to its end handle.
    ///
    /// Core 5.3 Vol 3 Part G §4.7.1 (Discover All Characteristic Descriptors).
    public func discoverDescriptors(of characteristic: GATTCharacteristic) async throws -> [GATTDescriptor] {
        var descriptors: [GATTDescriptor] = []
        guard characteristic.valueHandle < characteristic.endHandle else { return descriptors }
        var start = characteristic.valueHandle + 1
        pages: while start <= characteristic.endHandle {
            let page: ATTFindInformationResponse
            do {
                page = try await request(
                    ATTFindInformationRequest(startingHandle: start, endingHandle: characteristic.endHandle),
                    expecting: ATTFindInformationResponse.self)
            } catch ATTErrorCode.attributeNotFound {
                break pages
            }
            for entry in page.entries {
                guard entry.handle >= start, entry.handle <= characteristic.endHandle else {
                    throw GATTClientError(
                        .malformedResponse,
                        "descriptor 0x\(hex(entry.handle)) is outside 0x\(hex(start))–0x\(hex(characteristic.endHandle))"
                    )
                }
                descriptors.append(GATTDescriptor(uuid: entry.type, handle: entry.handle))
                start = entry.handle
            }
            if start == 0xFFFF { break }
            start += 1
        }
        return descriptors
    }
}
