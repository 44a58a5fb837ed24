import BlueZTransport
// BLE benchmark: decode cost per notification, and the latency from a simulated peripheral's write
// to a BLESensor's handler over socketpair(AF_UNIX, SOCK_SEQPACKET).
//
//   swift run -c release BLEBenchmark [iterations] [latency samples]
//
// Decode cost covers what every notification pays: ATT PDU decode, SensorPayload decode and the
// reading interpreter (cadence/speed/distance maths). Latency covers the simulated peripheral's GATT
// server, the socket, the poll()-driven bearer, the GATT client actor, the decoders and delivery.
import BluetoothLE
import FitnessSensors
import Foundation
import Synchronization

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let iterations = arguments.first ?? 2_000_000
let latencySamples = arguments.dropFirst().first ?? 20_000

func nanoseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
}

// MARK: - Decode cost

let cases: [(String, UInt16, [UInt8])] = [
    ("heart rate 0x2A37 (HR + RR)", 0x2A37, [0x16, 0x46, 0x38, 0x03]),
    (
        "heart rate 0x2A37 (u16 HR + EE + 3 RR)", 0x2A37,
        [0x19, 0x48, 0x00, 0x4E, 0x01, 0x00, 0x04, 0x10, 0x04, 0x20, 0x04]
    ),
    (
        "cycling power 0x2A63 (torque, wheel, crank, energy)", 0x2A63,
        [0x34, 0x18, 0x96, 0x00, 0x40, 0x01, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x08, 0x03, 0x00, 0x00, 0x04, 0x05, 0x00]
    ),
    ("CSC 0x2A5B (wheel + crank)", 0x2A5B, [0x03, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x04, 0x05, 0x00, 0x00, 0x08]),
    ("RSC 0x2A53 (stride + total distance)", 0x2A53, [0x07, 0x00, 0x03, 0xAC, 0x69, 0x00, 0x39, 0x30, 0x00, 0x00]),
    ("indoor bike 0x2AD2 (Saris H3 frame)", 0x2AD2, [0x46, 0x00, 0xB8, 0x0B, 0x00, 0x00, 0xB4, 0x00, 0xFA, 0x00]),
    (
        "indoor bike 0x2AD2 (iConsole, 8 fields)", 0x2AD2,
        [
            0x74, 0x0B, 0x3C, 0x05, 0x48, 0x00, 0x21, 0x00, 0x00, 0x01, 0x00, 0x18, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
            0x56, 0x10, 0x00,
        ]
    ),
    (
        "treadmill 0x2ACD (distance, incline, elapsed)", 0x2ACD,
        [0x0C, 0x04, 0xE8, 0x03, 0x10, 0x27, 0x00, 0x32, 0x00, 0x1D, 0x00, 0x3C, 0x00]
    ),
    (
        "rower 0x2AD1 (strokes, distance, pace, power)", 0x2AD1,
        [0x2C, 0x00, 0x38, 0x2A, 0x00, 0xD0, 0x07, 0x00, 0x78, 0x00, 0x96, 0x00]
    ),
    ("indoor bike 0x2AD2, More Data parts (8th dropped)", 0x2AD2, [0x45, 0x00, 0xB4, 0x00, 0xC8, 0x00]),
]

print("Decode cost per notification (ATT decode + SensorPayload + interpreter), \(iterations) iterations each;")
print("the ratio is to the first heart-rate case, measured in this run:")
let clock = ContinuousClock()
var heartRateNanoseconds: Double?
for (label, characteristic, value) in cases {
    let pdu = ATTHandleValueNotification(handle: 0x000C, value: value).encode()
    var interpreter = SensorReadingInterpreter()
    var sink = 0
    let elapsed = clock.measure {
        for i in 0 ..< iterations {
            guard case .handleValueNotification(let notification)? = try? ATTPDU.decode(pdu) else { continue }
            // The one decode-and-interpret path every sensor uses (More Data parts are joined there).
            sink &+=
                ((try? interpreter.readings(fromValue: notification.value, of: characteristic, at: Double(i) * 0.25))?
                    .count ?? 0)
        }
    }
    let perNotification = nanoseconds(elapsed) / Double(iterations)
    let ratio = perNotification / (heartRateNanoseconds ?? perNotification)
    if heartRateNanoseconds == nil { heartRateNanoseconds = perNotification }
    print(
        "  \(label.padding(toLength: 52, withPad: " ", startingAt: 0)) \(String(format: "%7.1f ns  %5.2f x", perNotification, ratio))  (\(sink % 10))"
    )
}

// MARK: - Latency

final class Timings: Sendable {
    let received = Mutex<[ContinuousClock.Instant]>([])
    let signal: AsyncStream<Void>
    let continuation: AsyncStream<Void>.Continuation
    init() { (signal, continuation) = AsyncStream.makeStream(of: Void.self) }
}

func measureLatency(samples latencySamples: Int) async -> [Double] {
    let peripheral = SimulatedPeripheral(profile: .heartRateStrap(), resendsLastValueOnSubscribe: false)
    var options = BLESensor.Options()
    options.duplicateWindow = 0  // the synthetic strap may repeat a value back to back at this pace
    let timings = Timings()
    let sensor = BLESensor(
        identifier: "unix:benchmark", name: "Benchmark", capabilities: .heartRateStrap, options: options
    ) {
        let (central, far) = try SocketBearer.pair()
        Task { await peripheral.serve(far) }
        return central
    }
    let connected = AsyncStream.makeStream(of: Void.self)
    sensor.start { event in
        switch event.kind {
        case .reading(.heartRate):
            let now = ContinuousClock.now
            timings.received.withLock { $0.append(now) }
            timings.continuation.yield()
        case .connection(.connected):
            connected.continuation.yield()
        default:
            break
        }
    }
    var connectedIterator = connected.stream.makeAsyncIterator()
    _ = await connectedIterator.next()

    var latencies: [Double] = []
    var signals = timings.signal.makeAsyncIterator()
    let warmUp = 1000
    for i in 0 ..< latencySamples + warmUp {
        let sent = ContinuousClock.now
        await peripheral.step()
        _ = await signals.next()
        let received = timings.received.withLock { $0.removeLast() }
        if i >= warmUp { latencies.append(nanoseconds(sent.duration(to: received)) / 1000) }
    }
    sensor.stop()
    return latencies
}

let latencies = await measureLatency(samples: latencySamples)
let sorted = latencies.sorted()
let percentile = { (p: Double) -> Double in sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
print("Latency, simulated peripheral write → BLESensor handler over socketpair, \(sorted.count) notifications:")
print(
    String(
        format: "  p50 %.1f µs   p90 %.1f µs   p99 %.1f µs   max %.1f µs", percentile(0.5), percentile(0.9),
        percentile(0.99), sorted.last ?? 0))
