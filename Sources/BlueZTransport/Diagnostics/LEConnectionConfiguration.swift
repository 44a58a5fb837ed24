/// The `[LE]` connection parameters of BlueZ's `/etc/bluetooth/main.conf`, as bluetoothd reads
/// them, and whether they let fitness straps stay connected.
///
/// bluetoothd reads `MaxConnectionInterval` (units of 1.25 ms, 0x0006–0x0C80) and
/// `ConnectionSupervisionTimeout` (units of 10 ms, 0x000A–0x0C80) as integers in C notation
/// (`strtol` base 0: `520`, `0x208`), ignores a value that is not one or is out of range, and hands
/// what it accepted to the kernel when it starts (Set Default System Configuration). The kernel's
/// own defaults are 0x0028 (50 ms) and 0x002A (420 ms).
///
/// The kernel refuses a peripheral's connection-parameter request whose maximum interval exceeds
/// its own maximum (`hci_le_remote_conn_param_req_evt`, `l2cap_conn_param_update_req`). Straps
/// built on Nordic's SDK template ask for 400–650 ms three times (5 s, then 30 s apart) and then
/// disconnect with 0x3B, about 65 s after connecting. A supervision timeout of 420 ms, where
/// phones use about 5 s, drops a link at the first short fade.
///
/// BlueZ `src/main.conf` and `src/main.c` (`parse_config_int`); Linux `net/bluetooth/hci_core.c`
/// (defaults), `hci_event.c`, `l2cap_core.c`.
public struct LEConnectionConfiguration: Hashable, Sendable, Codable {
    /// The kernel's default maximum connection interval, 0x0028 × 1.25 ms = 50 ms.
    public static let kernelMaximumInterval = 0x0028
    /// The kernel's default supervision timeout, 0x002A × 10 ms = 420 ms.
    public static let kernelSupervisionTimeout = 0x002A
    /// What straps ask for at most: 650 ms (Nordic's SDK template), 520 × 1.25 ms.
    public static let recommendedMaximumInterval = 520
    /// About what phones use: 5 s, 500 × 10 ms.
    public static let recommendedSupervisionTimeout = 500

    /// `MaxConnectionInterval` as bluetoothd accepts it; `nil` when absent, commented out or ignored.
    public var maximumInterval: Int?
    /// `ConnectionSupervisionTimeout` as bluetoothd accepts it; `nil` likewise.
    public var supervisionTimeout: Int?
    /// Values bluetoothd would ignore, one sentence each.
    public var problems: [String]

    public init(maximumInterval: Int? = nil, supervisionTimeout: Int? = nil, problems: [String] = []) {
        self.maximumInterval = maximumInterval
        self.supervisionTimeout = supervisionTimeout
        self.problems = problems
    }

    /// Reads the `[LE]` group of a key file in GLib's syntax: `[Group]` lines, `Key=Value` with
    /// blanks around `=` ignored, `#` comment lines; the last of repeated keys counts.
    public init(parsing text: String) {
        var group = ""
        var values: [String: String] = [:]
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                group = String(line.dropFirst().dropLast())
                continue
            }
            guard group == "LE", let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            values[key] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        var problems: [String] = []
        func value(_ key: String, _ range: ClosedRange<Int>) -> Int? {
            guard let text = values[key] else { return nil }
            guard let number = Self.integer(text) else {
                problems.append("\(key)=\(text) is not an integer, so bluetoothd ignores it")
                return nil
            }
            guard range.contains(number) else {
                problems.append(
                    "\(key)=\(text) is outside \(range.lowerBound)–\(range.upperBound), so bluetoothd ignores it")
                return nil
            }
            return number
        }
        maximumInterval = value("MaxConnectionInterval", 0x0006 ... 0x0C80)
        supervisionTimeout = value("ConnectionSupervisionTimeout", 0x000A ... 0x0C80)
        self.problems = problems
    }

    /// An integer as `strtol(…, 0)` reads a whole string: decimal, `0x` hexadecimal, `0` octal.
    static func integer(_ text: String) -> Int? {
        var digits = Substring(text)
        var negative = false
        if let sign = digits.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        let value: Int?
        if digits.lowercased().hasPrefix("0x") {
            value = Int(digits.dropFirst(2), radix: 16)
        } else if digits.count > 1, digits.hasPrefix("0") {
            value = Int(digits.dropFirst(), radix: 8)
        } else {
            value = Int(digits, radix: 10)
        }
        return value.map { negative ? -$0 : $0 }
    }

    /// The maximum interval in effect once bluetoothd has started: the file's, else the kernel's.
    public var effectiveMaximumInterval: Int { maximumInterval ?? Self.kernelMaximumInterval }
    /// The supervision timeout in effect once bluetoothd has started.
    public var effectiveSupervisionTimeout: Int { supervisionTimeout ?? Self.kernelSupervisionTimeout }

    /// Whether straps' connection-parameter requests (up to 650 ms) are accepted.
    public var acceptsStrapIntervals: Bool { effectiveMaximumInterval >= Self.recommendedMaximumInterval }
    /// Whether the supervision timeout is as long as a phone's.
    public var hasPhoneLikeSupervisionTimeout: Bool {
        effectiveSupervisionTimeout >= Self.recommendedSupervisionTimeout
    }

    /// `1.25 ms` units in milliseconds, as people read them: `50 ms`, `650 ms`.
    static func intervalMilliseconds(_ units: Int) -> String { milliseconds(Double(units) * 1.25) }
    /// `10 ms` units: `420 ms`, `5 s`.
    static func timeoutMilliseconds(_ units: Int) -> String { milliseconds(Double(units) * 10) }

    private static func milliseconds(_ value: Double) -> String {
        if value >= 1000, value.truncatingRemainder(dividingBy: 1000) == 0 { return "\(Int(value / 1000)) s" }
        return value == value.rounded() ? "\(Int(value)) ms" : "\(value) ms"
    }
}
