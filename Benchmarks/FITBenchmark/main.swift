// FIT decoding benchmark: a long ride (HOURS at 1 Hz, default 6: heart rate, power, cadence, speed, distance) written
// with FITFileBuilder, decoded by FITFile's streaming reader, by fitparse and by Garmin's FIT SDK for Python (from
// .build/fit-venv, which scripts/install-dependencies.sh creates) in the same run. Records per second (best of 3
// for FITFile; one run each for the Python decoders) and peak RSS, each decoder in a child process of its own so
// the peaks are the decoder's; FITFile's peak is measured on a 1-hour and the long file to show it flat in length.
//
//   swift run -c release FITBenchmark [hours]
import FITFile
import Foundation

func peakRSSKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
    return 0
}

/// Decodes `path` with FITFile, counting record messages; returns (records, seconds).
func decode(_ path: String) throws -> (Int, Double) {
    let began = DispatchTime.now().uptimeNanoseconds
    let reader = try FITFileReader(path: path)
    var records = 0
    while let item = try reader.next() {
        if case let .message(message) = item, message.globalMessageNumber == FITMessageNumber.record {
            if message.value(7) != nil { records += 1 }
        }
    }
    return (records, Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9)
}

func writeRide(hours: Double, to path: String) throws {
    var file = FITFileBuilder()
    let f = { (n: UInt8, s: UInt8, t: FITBaseType) in FITFieldDefinition(number: n, size: s, baseType: t) }
    file.define(
        FITMessageDefinition(
            globalMessageNumber: FITMessageNumber.fileId, fields: [f(0, 1, .enum), f(1, 2, .uint16), f(4, 4, .uint32)]),
        localType: 0)
    file.write([.unsigned(4), .unsigned(255), .unsigned(1_100_000_000)], localType: 0)
    file.define(
        FITMessageDefinition(
            globalMessageNumber: FITMessageNumber.record,
            fields: [
                f(253, 4, .uint32), f(3, 1, .uint8), f(7, 2, .uint16), f(4, 1, .uint8), f(6, 2, .uint16),
                f(5, 4, .uint32),
            ]), localType: 1)
    var distance: UInt64 = 0
    for t in 0 ..< Int(hours * 3600) {
        let speed = UInt64(8000 + (t * 37) % 4000)
        distance += speed / 10
        file.write(
            [
                .unsigned(1_100_000_000 + UInt64(t)), .unsigned(UInt64(110 + (t * 7) % 60)),
                .unsigned(UInt64(150 + (t * 13) % 200)),
                .unsigned(UInt64(80 + t % 20)), .unsigned(speed), .unsigned(distance),
            ], localType: 1)
    }
    try Data(file.finish()).write(to: URL(fileURLWithPath: path))
}

func child(_ executable: String, _ arguments: [String]) throws -> [String: Any] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
}

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "--decode" {
    var best = Double.infinity
    var records = 0
    for _ in 0 ..< 3 {
        let (count, seconds) = try decode(arguments[2])
        records = count
        best = min(best, seconds)
    }
    let json = try JSONSerialization.data(withJSONObject: [
        "records": records, "seconds": best, "peakRSSKB": peakRSSKilobytes(),
    ])
    print(String(decoding: json, as: UTF8.self))
    exit(0)
}

let hours = arguments.count > 1 ? Double(arguments[1]) ?? 6 : 6
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let python = root.appendingPathComponent(".build/fit-venv/bin/python").path
let oracle = root.appendingPathComponent("Tests/FITFileTests/Oracle/fit_oracle.py").path
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fit-benchmark-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let long = directory.appendingPathComponent("long.fit").path
let short = directory.appendingPathComponent("short.fit").path
try writeRide(hours: hours, to: long)
try writeRide(hours: 1, to: short)
let size = (try FileManager.default.attributesOfItem(atPath: long)[.size] as? Int) ?? 0
print("FIT decode, \(hours) h at 1 Hz (\(Int(hours * 3600)) records, \(size / 1024) KiB)")

func line(_ name: String, _ result: [String: Any]) -> Double {
    let records = (result["records"] as? NSNumber)?.doubleValue ?? 0
    let seconds = (result["seconds"] as? NSNumber)?.doubleValue ?? .nan
    let rss = (result["peakRSSKB"] as? NSNumber)?.doubleValue ?? 0
    let rate = records / seconds
    print(
        "  \(name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(String(format: "%12.0f", rate)) records/s  \(String(format: "%8.3f", seconds)) s  peak RSS \(String(format: "%6.1f", rss / 1024)) MB  (\(Int(records)) records)"
    )
    return rate
}
let ours = line("FITFile", try child(arguments[0], ["--decode", long]))
_ = line("FITFile, 1 h", try child(arguments[0], ["--decode", short]))
guard FileManager.default.isExecutableFile(atPath: python) else {
    print("  (no \(python): run scripts/install-dependencies.sh to compare with fitparse and garmin-fit-sdk)")
    exit(0)
}
let fitparse = line("fitparse", try child(python, [oracle, "bench-fitparse", long]))
let garmin = line("garmin-fit-sdk", try child(python, [oracle, "bench-garmin", long]))
print(
    String(
        format: "  FITFile / fitparse %.0f×, FITFile / garmin-fit-sdk %.0f×   (goal: ≥ 50× fitparse)", ours / fitparse,
        ours / garmin))
