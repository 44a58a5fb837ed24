// libFuzzer target for the FIT decoder (FITFile). Every input must decode to its end or throw a DecodeError whose
// offset lies inside the input (or at its end); fed in small chunks, the decoder must give the same items and the
// same error as fed whole. FIT protocol (FIT SDK 21.218).
import ByteCoding
import FITFile

enum Outcome: Equatable {
    case items([FITDecoder.Item])
    case failed(DecodeError)
}

func run(_ bytes: [UInt8], chunk: Int) -> Outcome {
    var decoder = FITDecoder()
    var items: [FITDecoder.Item] = []
    var available = min(chunk, bytes.count)
    var position = 0
    while true {
        let result: Result<FITDecoder.Step, DecodeError> = bytes.withUnsafeBytes { raw in
            let window = UnsafeRawBufferPointer(rebasing: raw[position ..< available])
            do throws(DecodeError) { return .success(try decoder.step(window, atEnd: available == bytes.count)) } catch
            { return .failure(error) }
        }
        switch result {
        case let .failure(error):
            precondition(
                error.offset >= 0 && error.offset <= bytes.count, "offset \(error.offset) outside \(bytes.count) bytes")
            return .failed(error)
        case let .success(.item(item, consumed)):
            position += consumed
            items.append(item)
        case .success(.needBytes):
            precondition(available < bytes.count, "needBytes at the end of the input")
            available = min(available + chunk, bytes.count)
        case .success(.finished):
            return .items(items)
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let whole = run(bytes, chunk: max(1, bytes.count))
    let chunked = run(bytes, chunk: 7)
    precondition(whole == chunked, "chunked decoding differs")
    if case let .items(items) = whole {
        for case let .message(message) in items {
            _ = message.timestamp
            for field in message.fields {
                _ = message.value(field.number)
                _ = message.values(field.number)
            }
        }
    }
    return 0
}
