// libFuzzer target: what a controller and the kernel say — the return parameters of HCI Read Local
// Supported Commands (Core 5.3 Vol 4 Part E §7.4.2), management packets with Read Controller
// Information replies, and the discovery events Device Found and Discovering (BlueZ
// doc/mgmt-api.txt). Decoding must never trap; a decoded value must round-trip.
import BluetoothLE
import ByteCoding

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let commands = try? HCILocalSupportedCommands(returnParameters: bytes) {
        guard commands.returnParameters == bytes else { fatalError("supported commands round trip changed \(bytes)") }
        _ = commands.supportsExtendedScanning
        _ = commands.contains(octet: Int(bytes.first ?? 0), bit: Int(bytes.last ?? 0))
    }
    if let packet = try? MGMTPacket(bytes: bytes) {
        guard packet.encode() == bytes else { fatalError("management round trip changed \(bytes)") }
        if let result = try? packet.commandResult(), result.status == 0,
            let information = try? MGMTControllerInformation(returnParameters: result.returnParameters)
        {
            _ = information.isReadyForLowEnergy
        }
    }
    if let found = try? MGMTDeviceFound(parameters: bytes) {
        guard found.encode() == bytes else { fatalError("device found round trip changed \(bytes)") }
        var results = ScanResultsProbe()
        results.take(found)
    }
    if let discovering = try? MGMTDiscovering(parameters: bytes) {
        guard (try? MGMTDiscovering(parameters: discovering.encode())) == discovering else {
            fatalError("discovering did not decode again \(bytes)")
        }
    }
    if let information = try? MGMTControllerInformation(returnParameters: bytes) {
        guard (try? MGMTControllerInformation(returnParameters: information.encode())) != nil else {
            fatalError("controller information did not decode again \(bytes)")
        }
    }
    return 0
}

/// What the scanner does with a found device's data: read it as advertising data (the transport's
/// ScanResults, which the fuzzers cannot link, does no more than this with it).
struct ScanResultsProbe {
    var names: [String] = []
    mutating func take(_ found: MGMTDeviceFound) {
        if let advertising = try? AdvertisingData(bytes: found.data) {
            names.append(advertising.localName ?? "")
            _ = advertising.serviceUUIDs
            _ = advertising.appearance
        }
        _ = found.address.randomKind
    }
}
