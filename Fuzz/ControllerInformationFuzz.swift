// libFuzzer target: what a controller and the kernel say about themselves — the return parameters
// of HCI Read Local Supported Commands (Core 5.3 Vol 4 Part E §7.4.2) and management packets with
// Read Controller Information replies (BlueZ doc/mgmt-api.txt). Decoding must never trap; a
// decoded value must round-trip.
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
           let information = try? MGMTControllerInformation(returnParameters: result.returnParameters) {
            _ = information.isReadyForLowEnergy
        }
    }
    if let information = try? MGMTControllerInformation(returnParameters: bytes) {
        guard (try? MGMTControllerInformation(returnParameters: information.encode())) != nil else {
            fatalError("controller information did not decode again \(bytes)")
        }
    }
    return 0
}
