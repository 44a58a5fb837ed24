// libFuzzer target: ATT PDU decoding (Core 5.3 Vol 3 Part F §3.4). Any input must decode or throw a
// DecodeError; a decoded PDU must re-encode to bytes that decode to the same PDU.
import BluetoothLE
import ByteCoding
import FitnessSensors

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let pdu = try? ATTPDU.decode(bytes) else { return 0 }
    let again = pdu.encode()
    guard let second = try? ATTPDU.decode(again), second == pdu else {
        fatalError("ATT round trip changed \(bytes) into \(again)")
    }
    return 0
}
