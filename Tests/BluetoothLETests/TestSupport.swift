import FitnessSensors
import Testing

/// Parses "10 01 00 FF FF" (spaces optional) into bytes; traps on a typo in a test vector.
func bytes(_ hex: String) -> [UInt8] {
    let digits = hex.filter { !$0.isWhitespace }
    precondition(digits.count % 2 == 0, "odd hex digit count in test vector \(hex)")
    var result: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        result.append(UInt8(digits[index ..< next], radix: 16)!)
        index = next
    }
    return result
}

/// A small deterministic generator (SplitMix64) so random-input tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Asserts that every proper prefix of `full` fails to decode with a `DecodeError` whose offset
/// lies inside the prefix (or at its end), and never traps. Prefix lengths in `valid` are ones the
/// format allows (a shorter value, fewer list entries) and must decode instead.
func expectEveryTruncationThrows(
    _ full: [UInt8],
    except valid: Set<Int> = [],
    sourceLocation: SourceLocation = #_sourceLocation,
    _ decode: ([UInt8]) throws(DecodeError) -> Void
) {
    for length in 0 ..< full.count {
        let prefix = Array(full.prefix(length))
        if valid.contains(length) {
            do { try decode(prefix) } catch {
                Issue.record("valid \(length)-byte prefix failed: \(error)", sourceLocation: sourceLocation)
            }
            continue
        }
        do {
            try decode(prefix)
            Issue.record("decoding \(length) of \(full.count) bytes succeeded", sourceLocation: sourceLocation)
        } catch {
            #expect(error.offset <= length, "offset \(error.offset) past a \(length)-byte input", sourceLocation: sourceLocation)
        }
    }
}
