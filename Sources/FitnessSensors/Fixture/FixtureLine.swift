/// The fields of one event line, parsed from its bytes without Foundation's JSON machinery.
///
/// Event lines are flat JSON objects (see `fixtures/FORMAT.md`): string and number values only, so a small
/// scanner over the UTF-8 bytes reads them several times faster than `JSONSerialization` and allocates only the
/// notification bytes. Unknown keys are skipped, so later minor additions do not break version-1 readers.
/// Errors are phrases saying what was expected; the reader adds the file and line.
struct FixtureLine {
    var time: Int64?
    var sensor: Substring?
    var characteristic: UInt16?
    var value: [UInt8]?
    var connection: Substring?
    var reason: String?
    var action: Substring?
    var activity: String?
    var location: String?

    /// Parses one line (without its newline).
    static func parse(_ line: UnsafeBufferPointer<UInt8>) throws(LineProblem) -> FixtureLine {
        var scanner = Scanner(bytes: line)
        var fields = FixtureLine()
        scanner.skipSpace()
        guard scanner.take(UInt8(ascii: "{")) else { throw LineProblem("expected a JSON object starting with '{'") }
        scanner.skipSpace()
        if scanner.take(UInt8(ascii: "}")) { return fields }
        while true {
            scanner.skipSpace()
            let key = try scanner.string()
            scanner.skipSpace()
            guard scanner.take(UInt8(ascii: ":")) else { throw LineProblem("expected ':' after the key \"\(key)\"") }
            scanner.skipSpace()
            switch key {
            case "t": fields.time = try scanner.milliseconds()
            case "s": fields.sensor = Substring(try scanner.string())
            case "c":
                let text = try scanner.stringBytes()
                guard text.count == 4, let bytes = Hex.bytes(text) else {
                    throw LineProblem("expected \"c\" to be a characteristic as four hex digits, like \"2A37\"")
                }
                fields.characteristic = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            case "v":
                guard let bytes = Hex.bytes(try scanner.stringBytes()) else {
                    throw LineProblem("expected \"v\" to be the notification bytes as an even number of hex digits")
                }
                fields.value = bytes
            case "connection": fields.connection = Substring(try scanner.string())
            case "reason": fields.reason = try scanner.string()
            case "action": fields.action = Substring(try scanner.string())
            case "activity": fields.activity = try scanner.string()
            case "location": fields.location = try scanner.string()
            default: try scanner.skipValue()
            }
            scanner.skipSpace()
            if scanner.take(UInt8(ascii: ",")) { continue }
            if scanner.take(UInt8(ascii: "}")) { break }
            throw LineProblem(
                scanner.atEnd
                    ? "expected ',' or '}' but the line ends early"
                    : "expected ',' or '}' after the value of \"\(key)\"")
        }
        scanner.skipSpace()
        guard scanner.atEnd else { throw LineProblem("expected the line to end after the closing '}'") }
        return fields
    }

    /// A parse failure, as a phrase.
    struct LineProblem: Error {
        var text: String
        init(_ text: String) { self.text = text }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var atEnd: Bool { index >= bytes.count }

        mutating func skipSpace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0D {
                index += 1
            }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// The raw bytes of a string without escapes (hex fields never need them).
        mutating func stringBytes() throws(LineProblem) -> UnsafeBufferPointer<UInt8> {
            guard take(UInt8(ascii: "\"")) else {
                throw LineProblem(
                    atEnd ? "expected a string but the line ends early" : "expected a string in double quotes")
            }
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                guard bytes[index] != UInt8(ascii: "\\") else {
                    throw LineProblem("expected hex digits, not an escape sequence")
                }
                index += 1
            }
            guard index < bytes.count else { throw LineProblem("expected a closing '\"' but the line ends early") }
            defer { index += 1 }
            return UnsafeBufferPointer(rebasing: bytes[start ..< index])
        }

        mutating func string() throws(LineProblem) -> String {
            guard take(UInt8(ascii: "\"")) else {
                throw LineProblem(
                    atEnd ? "expected a string but the line ends early" : "expected a string in double quotes")
            }
            var out = [UInt8]()
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
                if byte != UInt8(ascii: "\\") {
                    out.append(byte)
                    continue
                }
                guard index < bytes.count else { break }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count,
                        let high = Hex.bytes(UnsafeBufferPointer(rebasing: bytes[index ..< index + 4])),
                        let scalar = Unicode.Scalar(UInt32(high[0]) << 8 | UInt32(high[1]))
                    else {
                        throw LineProblem("expected four hex digits after \\u")
                    }
                    index += 4
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                default:
                    throw LineProblem("expected a JSON escape sequence, not '\\\(Character(Unicode.Scalar(escaped)))'")
                }
            }
            throw LineProblem("expected a closing '\"' but the line ends early")
        }

        /// A non-negative number of seconds with at most three decimals, as milliseconds.
        mutating func milliseconds() throws(LineProblem) -> Int64 {
            let problem = LineProblem(
                "expected \"t\" to be seconds as a non-negative number with at most three decimals")
            var whole: Int64 = 0
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                whole = whole &* 10 &+ Int64(bytes[index] - 0x30)
                digits += 1
                index += 1
                guard digits <= 12 else { throw problem }
            }
            guard digits > 0 else { throw problem }
            var fraction: Int64 = 0
            var scale: Int64 = 100
            if take(UInt8(ascii: ".")) {
                var fractionDigits = 0
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                    fractionDigits += 1
                    guard fractionDigits <= 3 else { throw problem }
                    fraction += Int64(bytes[index] - 0x30) * scale
                    scale /= 10
                    index += 1
                }
                guard fractionDigits > 0 else { throw problem }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                throw problem
            }
            return whole * 1000 + fraction
        }

        /// Skips a string, number, true, false or null; nested values are not part of event lines.
        mutating func skipValue() throws(LineProblem) {
            guard index < bytes.count else { throw LineProblem("expected a value but the line ends early") }
            switch bytes[index] {
            case UInt8(ascii: "\""): _ = try string()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                throw LineProblem("expected a flat object: event lines hold only strings and numbers")
            default:
                let start = index
                while index < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), 0x20].contains(bytes[index]) {
                    index += 1
                }
                guard index > start else { throw LineProblem("expected a value") }
            }
        }
    }
}
