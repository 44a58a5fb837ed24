import ByteCoding
import Testing

@Suite struct ByteReaderTests {
    /// Little-endian: the least significant byte comes first (Core Specification Vol 3, Part F §3.3).
    @Test func readsEveryWidthLittleEndian() throws {
        var reader = ByteReader([
            0x01, 0x34, 0x12, 0x56, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12,
            0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01,
        ])
        #expect(try reader.readUInt8("u8") == 0x01)
        #expect(try reader.readUInt16("u16") == 0x1234)
        #expect(try reader.readUInt24("u24") == 0x12_3456)
        #expect(try reader.readUInt32("u32") == 0x1234_5678)
        #expect(try reader.readUInt64("u64") == 0x0123_4567_89AB_CDEF)
        #expect(reader.isAtEnd)
    }

    @Test func signedSixtyFourBitsIsTwosComplement() throws {
        // -2 is 0xFFFF_FFFF_FFFF_FFFE.
        var reader = ByteReader([0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try reader.readInt64("i64") == -2)
    }

    @Test func shortInputNamesTheFieldAndTheOffset() {
        var reader = ByteReader([0, 1, 2, 3, 4, 5, 6], offset: 1)
        #expect(throws: DecodeError("expected 8 bytes for timestamp, found 6", at: 1)) {
            try reader.readUInt64("timestamp")
        }
        #expect(reader.offset == 1)
    }

    @Test func writerMirrorsTheReader() throws {
        var writer = ByteWriter()
        writer.write(UInt64(0x0123_4567_89AB_CDEF))
        writer.write(Int64(-2))
        #expect(writer.bytes.prefix(8) == [0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01])
        var reader = ByteReader(writer.bytes)
        #expect(try reader.readUInt64("a") == 0x0123_4567_89AB_CDEF)
        #expect(try reader.readInt64("b") == -2)
    }
}
