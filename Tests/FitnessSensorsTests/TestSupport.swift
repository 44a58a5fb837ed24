import ByteCoding
import FitnessSensors
import TestSupport
import Testing

/// Parses "16 4D 16 03" (spaces optional) into bytes.
func hex(_ string: String) -> [UInt8] { bytes(fromHex: string) }

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

typealias SplitMix64 = SeededGenerator

/// Whether two doubles agree to within `tolerance`.
func approximatelyEqual(_ a: Double?, _ b: Double?, tolerance: Double = 1e-9) -> Bool {
    switch (a, b) {
    case (nil, nil): true
    case let (a?, b?): abs(a - b) <= tolerance
    default: false
    }
}
