import ByteCoding
import Foundation

/// Reads a FIT file from disk item by item in constant memory: one buffer (256 KiB, enough for the largest
/// record the protocol allows) refilled from the file as the ``FITDecoder`` asks for bytes.
///
/// ```swift
/// let reader = try FITFileReader(path: "ride.fit")
/// while let item = try reader.next() {
///     if case let .message(message) = item, message.globalMessageNumber == FITMessageNumber.record { … }
/// }
/// ```
public final class FITFileReader {
    private let handle: FileHandle
    private var decoder = FITDecoder()
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var atEOF = false
    /// The file's size in bytes.
    public let fileSize: Int

    /// The largest record: a header byte, 255 fields of 255 bytes and 255 developer fields of 255 bytes.
    static let capacity = 256 * 1024

    /// Opens `path`; throws a `CocoaError` when it cannot be read.
    public init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        self.handle = handle
        fileSize = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        buffer = [UInt8](repeating: 0, count: Self.capacity)
    }

    deinit { try? handle.close() }

    /// The file offset of the next byte to decode.
    public var offset: Int { decoder.offset }
    /// Where the current file ends according to its header (see ``FITDecoder/declaredEnd``).
    public var declaredEnd: Int { decoder.declaredEnd }

    /// The next item, or nil after the last file of the chain ended cleanly. Throws `DecodeError` (with the file
    /// offset) on damaged input, or the file system's error.
    public func next() throws -> FITDecoder.Item? {
        while true {
            let step = try buffer.withUnsafeBytes { raw throws(DecodeError) in
                try decoder.step(UnsafeRawBufferPointer(rebasing: raw[start ..< end]), atEnd: atEOF)
            }
            switch step {
            case let .item(item, consumed):
                start += consumed
                return item
            case .finished:
                return nil
            case .needBytes:
                try fill()
            }
        }
    }

    private func fill() throws {
        if start > 0 {
            let count = end - start
            buffer.withUnsafeMutableBytes { raw in
                raw.baseAddress!.copyMemory(from: raw.baseAddress! + start, byteCount: count)
            }
            start = 0
            end = count
        }
        guard let data = try handle.read(upToCount: buffer.count - end), !data.isEmpty else {
            atEOF = true
            return
        }
        _ = buffer.withUnsafeMutableBytes { raw in
            data.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: raw[end ..< end + data.count]))
        }
        end += data.count
    }
}
