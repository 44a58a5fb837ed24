import ByteCoding
import Foundation
import Testing

@testable import OpenHealthKit

/// The mirroring frames against bytes written out by hand from the layout in `MirrorFrame`'s doc comment.
@Suite struct MirrorFrameTests {
    /// 800 000 060.5 s as a little-endian Float64: Python's `struct.pack('<d', 800000060.5).hex()` is 0000401e84d7c741.
    static let date: [UInt8] = [0x00, 0x00, 0x40, 0x1E, 0x84, 0xD7, 0xC7, 0x41]
    static let pausedAt = Date(timeIntervalSinceReferenceDate: 800_000_060.5)

    @Test func framesEncodeToTheDocumentedBytes() {
        #expect(
            MirrorFrame.state(from: .running, to: .paused, date: Self.pausedAt).encoded
                == [0x03, 0x0A, 0, 0, 0, 0x02, 0x04] + Self.date)
        #expect(MirrorFrame.event(.pause, date: Self.pausedAt).encoded == [0x04, 0x09, 0, 0, 0, 0x01] + Self.date)
        #expect(MirrorFrame.request(.end).encoded == [0x05, 0x01, 0, 0, 0, 0x04])
        #expect(MirrorFrame.data(Data("hi".utf8)).encoded == [0x06, 0x02, 0, 0, 0, 0x68, 0x69])
        #expect(MirrorFrame.stop.encoded == [0x07, 0, 0, 0, 0])
        #expect(MirrorFrame.accepted.encoded == [0x02, 0x01, 0, 0, 0, 0x01])
        // Activity 13 (cycling), location 2 (indoor), swimming location 0: 4 + 1 + 1 + 8 = 14 bytes.
        let indoorCycling = MirrorFrame.Configuration(
            activityType: .cycling, locationType: .indoor, swimmingLocationType: .unknown)
        #expect(
            MirrorFrame.activityBegan(indoorCycling, date: Self.pausedAt).encoded
                == [0x08, 0x0E, 0, 0, 0, 0x0D, 0, 0, 0, 0x02, 0x00] + Self.date)
        #expect(MirrorFrame.activityEnded(date: Self.pausedAt).encoded == [0x09, 0x08, 0, 0, 0] + Self.date)
    }

    /// The same stream fed whole and one byte at a time gives the same frames.
    @Test func theDecoderCutsAStreamIntoFramesHoweverItArrives() throws {
        let frames: [MirrorFrame] = [
            .start(
                configuration: .init(activityType: .running, locationType: .outdoor, swimmingLocationType: .unknown),
                state: .notStarted, startDate: nil),
            .state(from: .notStarted, to: .running, date: Self.pausedAt),
            .data(Data()), .data(Data(repeating: 7, count: 300)), .request(.pause), .stop,
        ]
        let bytes = frames.flatMap(\.encoded)
        var whole = MirrorFrameDecoder()
        #expect(try whole.append(bytes) == frames)
        #expect(!whole.hasPartialFrame)
        var trickle = MirrorFrameDecoder()
        var decoded: [MirrorFrame] = []
        for byte in bytes { decoded += try trickle.append([byte]) }
        #expect(decoded == frames)
    }

    @Test func damagedFramesAreRefusedWithTheirOffset() {
        var decoder = MirrorFrameDecoder()
        #expect(throws: DecodeError("frame kind 0xa is unknown", at: 5)) {
            _ = try decoder.append(MirrorFrame.stop.encoded + [0x0A, 0, 0, 0, 0])
        }
        // A state frame cut after its two states: the date is missing at stream offset 5 + 2 = 7.
        var short = MirrorFrameDecoder()
        #expect(throws: DecodeError("expected 8 bytes for date, found 0", at: 7)) {
            _ = try short.append([0x03, 0x02, 0, 0, 0, 0x02, 0x04])
        }
        var oversized = MirrorFrameDecoder()
        // Length 0x00100001 = 1 048 577 bytes, one more than the 1 MiB limit.
        #expect(throws: DecodeError("a frame's payload of 1048577 bytes exceeds 1048576", at: 1)) {
            _ = try oversized.append([0x06, 0x01, 0x00, 0x10, 0x00])
        }
        var badState = MirrorFrameDecoder()
        #expect(throws: DecodeError("to state 9 is not a workout session state", at: 6)) {
            _ = try badState.append([0x03, 0x0A, 0, 0, 0, 0x02, 0x09] + Self.date)
        }
        var trailing = MirrorFrameDecoder()
        #expect(throws: DecodeError("1 unexpected bytes after a frame of kind 0x5", at: 6)) {
            _ = try trailing.append([0x05, 0x02, 0, 0, 0, 0x01, 0x01])
        }
    }
}
