import Foundation
import OpenHealthKit

/// Writing an export: file names and an atomic write.
public enum ExportFile {
    /// The default file name: the start in local time and the activity, `2024-11-08-1133-cycling.fit`.
    public static func defaultName(
        start: Date, activityType: HKWorkoutActivityType, format: ExportFormat,
        timeZone: TimeZone = .current
    ) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: start)
        let stamp = String(
            format: "%04d-%02d-%02d-%02d%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0)
        let activity = activityType.name.replacingOccurrences(of: " ", with: "-").lowercased()
        return "\(stamp)-\(activity).\(format.rawValue)"
    }

    /// `name`, or when a file has it, the first of `stem-2.ext`, `stem-3.ext`, … that no file has: a default name
    /// never writes over a file (another workout that started the same minute, an earlier export).
    public static func freeName(
        _ name: String, exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }
    ) -> String {
        guard exists(name) else { return name }
        let dot = name.lastIndex(of: ".") ?? name.endIndex
        let (stem, ext) = (name[..<dot], name[dot...])
        var number = 2
        while exists("\(stem)-\(number)\(ext)") { number += 1 }
        return "\(stem)-\(number)\(ext)"
    }

    /// Writes `bytes` to `path` atomically: a temporary file in the same directory, then a rename over `path`, so a
    /// reader sees the old file or the whole new one and a failure leaves no partial file.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ExportError("\(path) is a directory; give a file name.")
        }
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).partial")
        guard FileManager.default.createFile(atPath: temporary.path, contents: Data(bytes)) else {
            throw ExportError("\(path) cannot be written (no such directory, or no permission).")
        }
        if rename(temporary.path, path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw ExportError("\(path) cannot be written: \(reason).")
        }
    }
}
