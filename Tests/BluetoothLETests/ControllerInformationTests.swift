import BluetoothLE
import ByteCoding
import Testing

/// Read Local Supported Commands (HCI) and Read Controller Information (BlueZ management).
@Suite struct ControllerInformationTests {
    /// Return parameters: status 00, then 64 octets. Octet 26 = 0x0C sets bits 2 and 3 (LE Set
    /// Scan Parameters, LE Set Scan Enable); octet 37 = 0x60 sets bits 5 and 6 (LE Set Extended
    /// Scan Parameters, LE Set Extended Scan Enable) — Core 5.3 Vol 4 Part E §6.27.
    static func mask(octet26: UInt8, octet37: UInt8) -> [UInt8] {
        var octets = [UInt8](repeating: 0, count: 64)
        octets[26] = octet26
        octets[37] = octet37
        return [0x00] + octets
    }

    @Test func extendedScanningNeedsBothBitsOfOctet37() throws {
        let both = try HCILocalSupportedCommands(returnParameters: Self.mask(octet26: 0x0C, octet37: 0x60))
        #expect(both.supportsExtendedScanning && both.supportsLegacyScanning)
        // 0x20 alone (parameters without enable) and 0x40 alone (enable without parameters): legacy,
        // as the kernel's use_ext_scan requires both.
        #expect(
            try !HCILocalSupportedCommands(returnParameters: Self.mask(octet26: 0x0C, octet37: 0x20))
                .supportsExtendedScanning)
        #expect(
            try !HCILocalSupportedCommands(returnParameters: Self.mask(octet26: 0x0C, octet37: 0x40))
                .supportsExtendedScanning)
        // 0xE0 adds bit 7 (LE Extended Create Connection): still extended.
        #expect(
            try HCILocalSupportedCommands(returnParameters: Self.mask(octet26: 0x00, octet37: 0xE0))
                .supportsExtendedScanning)
        #expect(both.returnParameters == Self.mask(octet26: 0x0C, octet37: 0x60))
    }

    /// The answer of BlueZ's emulated controller (btvirt, emulator/btdev.c) captured with btmon in
    /// the VM of scripts/bluetooth-vm-test.sh: `04 0E 44 01 02 10` then status 00 and 64 octets.
    /// btmon decodes octet 26 bits 2 and 3 and octet 37 bits 5 and 6 among its 185 commands;
    /// octets 26 and 37 are both 0xFF.
    @Test func btvirtsEmulatedControllerSupportsExtendedScanning() throws {
        let hex =
            "00f3bff90100d8e1ff3f0f641cc00ff8a30ce3830f1800040420f7ffe77f2808807c30fe27feffff0400e0ffff033c000000000000000000000000000000000000"
        let bytes = stride(from: 0, to: hex.count, by: 2).map { offset -> UInt8 in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start ..< hex.index(start, offsetBy: 2)], radix: 16)!
        }
        #expect(bytes.count == 65)
        let commands = try HCILocalSupportedCommands(returnParameters: bytes)
        #expect(commands.supportsExtendedScanning && commands.supportsLegacyScanning)
        // 185 commands: the number of bits set.
        #expect(commands.octets.reduce(0) { $0 + $1.nonzeroBitCount } == 185)
    }

    @Test func aFailedOrShortAnswerIsADecodeError() {
        #expect(throws: DecodeError("Read Local Supported Commands failed with status 0x01", at: 0)) {
            try HCILocalSupportedCommands(returnParameters: [0x01] + [UInt8](repeating: 0, count: 64))
        }
        #expect(throws: DecodeError.self) { try HCILocalSupportedCommands(returnParameters: [0x00, 0xFF]) }
        #expect(throws: DecodeError.self) { try HCILocalSupportedCommands(returnParameters: []) }
        #expect(throws: DecodeError.self) {
            try HCILocalSupportedCommands(returnParameters: Self.mask(octet26: 0, octet37: 0) + [0])
        }
    }

    @Test func theCommandIsFourBytes() {
        // 01 (command) · 02 10 (opcode 0x1002 = OGF 0x04 << 10 | OCF 0x002) · 00 (no parameters).
        #expect(HCIReadLocalSupportedCommands().encode() == [0x01, 0x02, 0x10, 0x00])
    }

    /// A Read Controller Information reply laid out by hand from doc/mgmt-api.txt: address
    /// 00:AA:01:01:00:00 (LSB first), version 0x09 (5.0), manufacturer 0x05F1 (Linux Foundation),
    /// supported settings 0x0001BEFF, current settings 0x00000201 = bit 0 (powered) | bit 9 (le),
    /// class 000000, name "BlueZ" NUL-padded to 249 bytes, empty short name (11 bytes).
    @Test func controllerInformationDecodesSettings() throws {
        var bytes: [UInt8] = [
            0x00, 0x00, 0x01, 0x01, 0xAA, 0x00, 0x09, 0xF1, 0x05, 0xFF, 0xBE, 0x01, 0x00, 0x01, 0x02, 0x00, 0x00,
        ]
        bytes +=
            [0, 0, 0] + Array("BlueZ".utf8) + [UInt8](repeating: 0, count: 249 - 5) + [UInt8](repeating: 0, count: 11)
        #expect(bytes.count == 280)
        let information = try MGMTControllerInformation(returnParameters: bytes)
        #expect(information.address == BluetoothAddress("00:AA:01:01:00:00"))
        #expect(information.version == 9 && information.manufacturer == 0x05F1)
        #expect(information.currentSettings == [.powered, .lowEnergy])
        #expect(information.isReadyForLowEnergy)
        #expect(information.name == "BlueZ")
        #expect(information.encode() == bytes)
        var leOff = information
        leOff.currentSettings = [.powered, .bredr]
        #expect(!leOff.isReadyForLowEnergy)
        #expect(throws: DecodeError.self) { try MGMTControllerInformation(returnParameters: Array(bytes.dropLast())) }
    }

    @Test func managementPacketsFrameAndAnswer() throws {
        // Read Controller Information for index 1: 04 00 · 01 00 · 00 00.
        #expect(
            MGMTPacket(code: MGMTPacket.readControllerInformation, controllerIndex: 1).encode() == [
                0x04, 0x00, 0x01, 0x00, 0x00, 0x00,
            ])
        // Command Complete (01 00) for index 1, 3 parameter bytes: opcode 04 00, status 0x11 (Invalid Index).
        let reply = try MGMTPacket(bytes: [0x01, 0x00, 0x01, 0x00, 0x03, 0x00, 0x04, 0x00, 0x11])
        let result = try #require(try reply.commandResult())
        #expect(result.opcode == 0x0004 && result.status == 0x11 && result.returnParameters.isEmpty)
        #expect(throws: DecodeError.self) { try MGMTPacket(bytes: [0x01, 0x00, 0x01, 0x00, 0x05, 0x00, 0x04]) }
        #expect(try MGMTPacket(code: 0x0006, controllerIndex: 0, parameters: [1]).commandResult() == nil)
    }

    /// A Device Found event's parameters laid out by hand from doc/mgmt-api.txt: address
    /// C0:11:22:33:44:55 (LSB first), type 2 (LE random), RSSI −60 (0xC4), flags 0x00000004 (not
    /// connectable), EIR length 7: flags AD `02 01 06` and 16-bit UUIDs `03 03 0D 18`.
    @Test func deviceFoundDecodesAddressTypeRSSIAndData() throws {
        let bytes: [UInt8] = [
            0x55, 0x44, 0x33, 0x22, 0x11, 0xC0, 0x02, 0xC4, 0x04, 0x00, 0x00, 0x00, 0x07, 0x00,
            0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18,
        ]
        let found = try MGMTDeviceFound(parameters: bytes)
        #expect(found.address == BluetoothAddress("C0:11:22:33:44:55", type: .random))
        #expect(found.isLowEnergy && found.isNotConnectable)
        #expect(found.rssi == -60)
        #expect(try AdvertisingData(bytes: found.data).serviceUUIDs == [BluetoothUUID(0x180D)])
        #expect(found.encode() == bytes)
        // Type 1 is LE public, 0 BR/EDR; RSSI 127 means not available.
        var other = bytes
        other[6] = 0x01
        other[7] = 0x7F
        let publicFound = try MGMTDeviceFound(parameters: other)
        #expect(publicFound.address.type == .public && publicFound.rssi == nil && publicFound.encode() == other)
        other[6] = 0x00
        #expect(try !MGMTDeviceFound(parameters: other).isLowEnergy)
        other[6] = 0x03
        #expect(throws: DecodeError.self) { try MGMTDeviceFound(parameters: other) }
        // EIR shorter than said.
        #expect(throws: DecodeError.self) { try MGMTDeviceFound(parameters: Array(bytes.dropLast())) }
        #expect(throws: DecodeError.self) { try MGMTDeviceFound(parameters: Array(bytes.prefix(13))) }
    }

    @Test func discoveringSaysWhetherDiscoveryRuns() throws {
        // Address types 0x06 (LE public and random), discovering 0 then 1.
        #expect(try MGMTDiscovering(parameters: [0x06, 0x00]) == MGMTDiscovering(isDiscovering: false))
        #expect(try MGMTDiscovering(parameters: [0x06, 0x01]).isDiscovering)
        #expect(MGMTDiscovering(isDiscovering: true).encode() == [0x06, 0x01])
        #expect(throws: DecodeError.self) { try MGMTDiscovering(parameters: [0x06]) }
        #expect(throws: DecodeError.self) { try MGMTDiscovering(parameters: [0x06, 0x01, 0x00]) }
        #expect(MGMTStatus.permissionDenied.description == "Permission Denied (0x14)")
    }

    @Test func theStaticAddressSettingMakesTheIdentityTheStaticAddress() throws {
        // Current settings bit 15 (Static Address): the identity is the static random address,
        // though the reply's address field is the public one (or 00:00:00:00:00:00 when there is none).
        var information = MGMTControllerInformation(
            address: BluetoothAddress("00:AA:01:01:00:00")!,
            supportedSettings: [.powered, .lowEnergy, .bredr],
            currentSettings: [.powered, .lowEnergy])
        #expect(!information.identityIsStaticAddress && information.publicAddress != nil)
        information.currentSettings.insert(.staticAddress)
        #expect(information.identityIsStaticAddress)
        #expect(
            information.encode()[14] == 0x82,
            "bit 15 is the top bit of Current_Settings' second byte (offset 14), beside bit 9 (LE)")
        let leOnly = MGMTControllerInformation(
            address: BluetoothAddress(rawValue: 0), supportedSettings: [.lowEnergy],
            currentSettings: [.lowEnergy])
        #expect(leOnly.publicAddress == nil && leOnly.identityIsStaticAddress)
    }
}
