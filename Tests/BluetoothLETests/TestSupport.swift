import ByteCoding
import TestSupport
import Testing

/// Parses "10 01 00 FF FF" (spaces optional) into bytes.
func bytes(_ hex: String) -> [UInt8] { bytes(fromHex: hex) }

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
            #expect(
                error.offset <= length, "offset \(error.offset) past a \(length)-byte input",
                sourceLocation: sourceLocation)
        }
    }
}
