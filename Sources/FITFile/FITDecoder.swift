import ByteCoding

/// The FIT decoder: a pure state machine that turns the bytes of a FIT file, given in any chunks, into its
/// headers, definitions, data messages and file ends, checking every CRC.
///
/// It keeps only the current definitions (16 local types), the last timestamp (for compressed-timestamp headers),
/// the developer field descriptions and a running CRC, so memory stays flat whatever the file's length.
/// Chained files (FIT protocol, "Chained FIT Files") follow one another: each `.fileEnd` may be followed by a new
/// `.fileHeader`; definitions, timestamps and developer descriptions do not carry over.
///
/// Every error is a `DecodeError` whose offset is the file offset of the byte at fault.
public struct FITDecoder: Sendable {
    /// What the decoder found.
    public enum Item: Hashable, Sendable {
        case fileHeader(FITFileHeader, offset: Int)
        case definition(FITMessageDefinition, localType: UInt8, offset: Int)
        case message(FITMessage)
        /// The end of one file: its CRC matched.
        case fileEnd(crc: UInt16, offset: Int)
    }

    /// The result of one step.
    public enum Step: Sendable {
        /// An item, made of the first `consumed` bytes given.
        case item(Item, consumed: Int)
        /// The next item needs at least `count` bytes from the start of those given.
        case needBytes(Int)
        /// The bytes ended cleanly after a file's CRC.
        case finished
    }

    private enum Phase: Sendable { case header, records, fileCRC }

    /// The file offset of the next byte the decoder expects.
    public private(set) var offset = 0
    private var phase = Phase.header
    private var dataEnd = 0
    private var crc = FITCRC()
    private var definitions = [FITMessageDefinition?](repeating: nil, count: 16)
    private var lastTimestamp: UInt32?
    private var descriptions: [UInt16: FITFieldDescription] = [:]
    /// How many files (of a chain) have ended with a good CRC.
    public private(set) var filesCompleted = 0
    /// The offset where the file being decoded began.
    public private(set) var fileStart = 0
    /// Where the file being decoded ends according to its header (data, then the 2-byte CRC); between files, the
    /// offset of the next header.
    public var declaredEnd: Int { phase == .header ? offset : dataEnd + 2 }

    public init() {}

    /// Decodes the next item from `bytes`, which must begin at ``offset``. `atEnd` says that no bytes follow these:
    /// then an incomplete item is an error (a truncated file) instead of `.needBytes`.
    public mutating func step(_ bytes: UnsafeRawBufferPointer, atEnd: Bool) throws(DecodeError) -> Step {
        switch phase {
        case .header:
            if bytes.isEmpty && atEnd {
                if filesCompleted > 0 { return .finished }
                throw DecodeError("an empty file: not a FIT file", at: offset)
            }
            guard bytes.count >= 1 else { return .needBytes(1) }
            guard bytes[0] >= FITFileHeader.minimumSize else {
                throw DecodeError(
                    "a FIT header size of \(bytes[0]) bytes (at least 12 expected): not a FIT file", at: offset)
            }
            let minimum = FITFileHeader.minimumSize
            guard bytes.count >= minimum else {
                if atEnd && filesCompleted == 0 {
                    throw DecodeError(
                        "\(bytes.count) byte\(bytes.count == 1 ? "" : "s") are too few for a FIT header: not a FIT file",
                        at: offset + bytes.count)
                }
                return try need(minimum, have: bytes.count, atEnd: atEnd, what: "file header")
            }
            guard bytes[8] == 0x2E, bytes[9] == 0x46, bytes[10] == 0x49, bytes[11] == 0x54 else {
                throw DecodeError("no \".FIT\" signature in the header: not a FIT file", at: offset + 8)
            }
            let size = Int(bytes[0])
            guard bytes.count >= size else {
                return try need(size, have: bytes.count, atEnd: atEnd, what: "file header")
            }
            let header = try FITFileHeader(bytes: ArraySlice(bytes[0 ..< size]), offset: offset)
            fileStart = offset
            crc = FITCRC()
            crc.update(UnsafeRawBufferPointer(rebasing: bytes[0 ..< size]))
            definitions = [FITMessageDefinition?](repeating: nil, count: 16)
            lastTimestamp = nil
            descriptions = [:]
            let start = offset
            offset += size
            dataEnd = offset + Int(header.dataSize)
            phase = header.dataSize == 0 ? .fileCRC : .records
            return .item(.fileHeader(header, offset: start), consumed: size)
        case .fileCRC:
            guard bytes.count >= 2 else { return try need(2, have: bytes.count, atEnd: atEnd, what: "file CRC") }
            let stored = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
            guard stored == crc.value else {
                throw DecodeError(
                    "the file CRC is 0x\(hex(stored)) but the file's bytes give 0x\(hex(crc.value))", at: offset)
            }
            let start = offset
            offset += 2
            filesCompleted += 1
            phase = .header
            return .item(.fileEnd(crc: stored, offset: start), consumed: 2)
        case .records:
            return try record(bytes, atEnd: atEnd)
        }
    }

    private func need(_ count: Int, have: Int, atEnd: Bool, what: String) throws(DecodeError) -> Step {
        if atEnd {
            throw DecodeError(
                "the file ends after \(have) of the \(count) bytes of a \(what) (truncated)", at: offset + have)
        }
        return .needBytes(count)
    }

    private mutating func record(_ bytes: UnsafeRawBufferPointer, atEnd: Bool) throws(DecodeError) -> Step {
        guard bytes.count >= 1 else { return try need(1, have: 0, atEnd: atEnd, what: "record header") }
        let header = FITRecordHeader(byte: bytes[0])
        let start = offset
        let size: Int
        switch header {
        case let .definition(_, hasDeveloperData):
            // Only the bytes up to the end of the data can belong to this record, however many were given.
            let window = min(bytes.count, dataEnd - start)
            guard
                let content = FITMessageDefinition.contentSize(
                    UnsafeRawBufferPointer(rebasing: bytes[0 ..< window]), from: 1,
                    hasDeveloperData: hasDeveloperData)
            else {
                if window == dataEnd - start {
                    throw DecodeError(
                        "a definition message runs past the end of the data the header declares (byte \(dataEnd))",
                        at: start)
                }
                return try need(bytes.count + 1, have: bytes.count, atEnd: atEnd, what: "definition message")
            }
            size = 1 + content
        case let .data(localType), let .compressedTimestamp(localType, _):
            guard let definition = definitions[Int(localType)] else {
                throw DecodeError("a data message of local type \(localType) before any definition of it", at: start)
            }
            size = 1 + definition.dataSize
        }
        guard start + size <= dataEnd else {
            let over = start + size - dataEnd
            throw DecodeError(
                "a record of \(size) bytes runs \(over) byte\(over == 1 ? "" : "s") past the end of the data the header declares (byte \(dataEnd))",
                at: start)
        }
        guard bytes.count >= size else { return try need(size, have: bytes.count, atEnd: atEnd, what: "record") }
        let item: Item
        switch header {
        case let .definition(localType, hasDeveloperData):
            let definition = try FITMessageDefinition(
                bytes, from: 1, hasDeveloperData: hasDeveloperData, offset: start + 1)
            definitions[Int(localType)] = definition
            item = .definition(definition, localType: localType, offset: start)
        case let .data(localType):
            item = .message(
                message(
                    bytes, definition: definitions[Int(localType)]!, localType: localType, compressed: nil,
                    offset: start))
        case let .compressedTimestamp(localType, timeOffset):
            guard let last = lastTimestamp else {
                throw DecodeError("a compressed-timestamp record before any timestamp", at: start)
            }
            let timestamp = FITRecordHeader.timestamp(offset: timeOffset, after: last)
            lastTimestamp = timestamp
            item = .message(
                message(
                    bytes, definition: definitions[Int(localType)]!, localType: localType, compressed: timestamp,
                    offset: start))
        }
        crc.update(UnsafeRawBufferPointer(rebasing: bytes[0 ..< size]))
        offset += size
        if offset == dataEnd { phase = .fileCRC }
        return .item(item, consumed: size)
    }

    private mutating func message(
        _ bytes: UnsafeRawBufferPointer, definition: FITMessageDefinition, localType: UInt8,
        compressed: UInt32?, offset start: Int
    ) -> FITMessage {
        let bigEndian = definition.architecture == .bigEndian
        var fields: [FITField] = []
        fields.reserveCapacity(definition.fields.count)
        var i = 1
        for field in definition.fields {
            let value = FITValue.decode(bytes, at: i, size: Int(field.size), type: field.baseType, bigEndian: bigEndian)
            fields.append(FITField(number: field.number, baseType: field.baseType, value: value))
            if field.number == 253, case let .unsigned(time) = value {
                lastTimestamp = UInt32(truncatingIfNeeded: time)
            }
            i += Int(field.size)
        }
        var developerFields: [FITDeveloperField] = []
        if !definition.developerFields.isEmpty {
            developerFields.reserveCapacity(definition.developerFields.count)
            for field in definition.developerFields {
                let description = descriptions[UInt16(field.developerDataIndex) << 8 | UInt16(field.number)]
                let value = FITValue.decode(
                    bytes, at: i, size: Int(field.size), type: description?.baseType ?? .byte, bigEndian: bigEndian)
                developerFields.append(
                    FITDeveloperField(
                        developerDataIndex: field.developerDataIndex, number: field.number,
                        value: value, description: description))
                i += Int(field.size)
            }
        }
        let message = FITMessage(
            globalMessageNumber: definition.globalMessageNumber, localType: localType, fields: fields,
            developerFields: developerFields, compressedTimestamp: compressed, offset: start)
        if definition.globalMessageNumber == FITMessageNumber.fieldDescription,
            let description = FITFieldDescription(message)
        {
            descriptions[UInt16(description.developerDataIndex) << 8 | UInt16(description.fieldDefinitionNumber)] =
                description
        }
        return message
    }
}

extension FITDecoder {
    /// Decodes a whole file held in memory, calling `body` with each item in order.
    public static func decode(_ bytes: [UInt8], _ body: (Item) throws -> Void) throws {
        var decoder = FITDecoder()
        try bytes.withUnsafeBytes { buffer in
            var position = 0
            while true {
                let step = try decoder.step(UnsafeRawBufferPointer(rebasing: buffer[position...]), atEnd: true)
                switch step {
                case let .item(item, consumed):
                    position += consumed
                    try body(item)
                case .needBytes, .finished:
                    return
                }
            }
        }
    }

    /// The data messages of a whole file held in memory.
    public static func messages(_ bytes: [UInt8]) throws -> [FITMessage] {
        var messages: [FITMessage] = []
        try decode(bytes) { item in
            if case let .message(message) = item { messages.append(message) }
        }
        return messages
    }
}
