/// Parses hex such as "16 4D 16 03" (spaces optional) into bytes; traps on malformed test input, which is a typo in
/// a test vector.
public func bytes(fromHex string: String) -> [UInt8] {
    let digits = string.filter { !$0.isWhitespace }
    precondition(digits.count % 2 == 0, "odd number of hex digits in \(string)")
    var result: [UInt8] = []
    result.reserveCapacity(digits.count / 2)
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        guard let byte = UInt8(digits[index ..< next], radix: 16) else {
            preconditionFailure("bad hex digits in \(string)")
        }
        result.append(byte)
        index = next
    }
    return result
}

/// A small deterministic generator (SplitMix64) so random-input tests are reproducible.
public struct SeededGenerator: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
