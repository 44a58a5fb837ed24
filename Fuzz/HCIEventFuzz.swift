// libFuzzer target: HCI event packets as a raw HCI socket delivers them (H4, Core 5.3 Vol 4 Part E
// §5.4.4 and §7.7), including LE advertising reports and their advertising data (Vol 3 Part C §11),
// and the scan-result merge. Decoding must never trap; a decoded event must round-trip.
import BluetoothLE
import ByteCoding
import FitnessSensors

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let event = try? HCIEvent.decode(h4Packet: bytes) else { return 0 }
    guard let again = try? HCIEvent.decode(h4Packet: event.encodeH4Packet()), again == event else {
        fatalError("HCI round trip changed \(bytes)")
    }
    if case .leAdvertisingReport(let reports) = event {
        for report in reports { _ = try? report.advertisingData }
    }
    return 0
}
