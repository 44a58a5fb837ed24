import FitnessSensors
import Testing

/// Parses "16 4D 16 03" (spaces optional) into bytes; traps on malformed test input.
func hex(_ string: String) -> [UInt8] {
    let digits = string.filter { !$0.isWhitespace }
    precondition(digits.count % 2 == 0, "odd number of hex digits in \(string)")
    var bytes: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        bytes.append(UInt8(digits[index ..< next], radix: 16)!)
        index = next
    }
    return bytes
}

/// The error a decoding closure throws, or `nil` when it succeeds. Any error other than a
/// ``DecodeError`` is recorded as a test failure.
func decodeError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> DecodeError? {
    do {
        try body()
        return nil
    } catch let error as DecodeError {
        return error
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A small deterministic generator (SplitMix64), so fuzz runs are repeatable from a seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Whether two doubles agree to within `tolerance`.
func approximatelyEqual(_ a: Double?, _ b: Double?, tolerance: Double = 1e-9) -> Bool {
    switch (a, b) {
    case (nil, nil): true
    case let (a?, b?): abs(a - b) <= tolerance
    default: false
    }
}
