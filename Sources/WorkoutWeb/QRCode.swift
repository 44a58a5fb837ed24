/// A QR code of a short text (the page's URL with its token), so that a tablet or phone opens the live view by
/// pointing its camera at the terminal: byte mode, error correction level M, versions 1 to 6 (up to 106 bytes, which
/// needs no version information), the mask with the lowest penalty.
///
/// ISO/IEC 18004:2015: §7.4 (data encoding), §7.5 (error correction: Reed–Solomon over GF(256) with the polynomial
/// x⁸ + x⁴ + x³ + x² + 1, Table 9's blocks), §7.6 and §7.7 (interleaving, module placement), §7.8 (masks and
/// their penalty rules N1–N4), §7.9 (format information).
public struct QRCode: Sendable, Equatable {
    /// The version (1–6): the symbol has 17 + 4 × version modules a side.
    public let version: Int
    /// The mask pattern applied (0–7).
    public let mask: Int
    /// The modules, row by row, `true` dark; without the quiet zone.
    public let modules: [[Bool]]

    public var size: Int { modules.count }

    /// Level M's blocks for versions 1–6 (Table 9): error correction codewords a block, blocks, data codewords a
    /// block (every block of these versions has the same size).
    static let blocks: [(ecPerBlock: Int, count: Int, dataPerBlock: Int)] = [
        (10, 1, 16), (16, 1, 28), (26, 1, 44), (18, 2, 32), (24, 2, 43), (16, 4, 27),
    ]
    /// The most bytes a version-6 symbol at level M holds in byte mode.
    public static let capacity = 106

    /// The code of `text`'s UTF-8 bytes in the smallest version that holds them; nil when they are more than
    /// ``capacity`` bytes. `mask` forces a mask pattern (tests); by default the one with the lowest penalty.
    public init?(_ text: String, mask forced: Int? = nil) {
        let bytes = Array(text.utf8)
        guard
            let version = (1 ... 6).first(where: { version in
                let layout = Self.blocks[version - 1]
                return 4 + 8 + 8 * bytes.count <= layout.count * layout.dataPerBlock * 8
            })
        else { return nil }
        self.version = version
        let codewords = Self.codewords(Self.data(bytes, version: version), version: version)
        var symbol = Symbol(version: version)
        symbol.place(codewords)
        let candidates = forced.map { [$0] } ?? Array(0 ..< 8)
        let best = candidates.map { mask -> (Int, Symbol) in
            var masked = symbol
            masked.apply(mask: mask)
            return (mask, masked)
        }.min { $0.1.penalty < $1.1.penalty }!
        mask = best.0
        modules = best.1.modules
    }

    /// The data codewords: mode 0100 (byte), an 8-bit count, the bytes, a terminator of up to four zeros, zeros to
    /// a byte, then the pad bytes 0xEC and 0x11 in turn to the version's data capacity (§7.4.2, §7.4.10).
    static func data(_ bytes: [UInt8], version: Int) -> [UInt8] {
        let layout = blocks[version - 1]
        let capacity = layout.count * layout.dataPerBlock
        var bits: [Bool] = []
        func append(_ value: Int, _ count: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) { bits.append(value >> shift & 1 == 1) }
        }
        append(0b0100, 4)
        append(bytes.count, 8)
        for byte in bytes { append(Int(byte), 8) }
        append(0, min(4, capacity * 8 - bits.count))
        while bits.count % 8 != 0 { bits.append(false) }
        var codewords = stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start ..< start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
        }
        var pad: UInt8 = 0xEC
        while codewords.count < capacity {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// The data split into the version's blocks, each given its error correction codewords, then interleaved: the
    /// blocks' first data codewords, their second, …, then their error correction codewords likewise (§7.6).
    static func codewords(_ data: [UInt8], version: Int) -> [UInt8] {
        let layout = blocks[version - 1]
        let divisor = ReedSolomon.generator(degree: layout.ecPerBlock)
        let dataBlocks = (0 ..< layout.count).map {
            Array(data[$0 * layout.dataPerBlock ..< ($0 + 1) * layout.dataPerBlock])
        }
        let ecBlocks = dataBlocks.map { ReedSolomon.remainder($0, divisor: divisor) }
        var result: [UInt8] = []
        for index in 0 ..< layout.dataPerBlock { result += dataBlocks.map { $0[index] } }
        for index in 0 ..< layout.ecPerBlock { result += ecBlocks.map { $0[index] } }
        return result
    }

    /// The code for a terminal: two rows of modules a line in half blocks, dark on light whatever the terminal's
    /// colours (black on white, ANSI), with a quiet zone of four modules.
    public func terminalLines() -> [String] {
        let quiet = 4
        let side = size + 2 * quiet
        let dark = { (row: Int, column: Int) -> Bool in
            let (r, c) = (row - quiet, column - quiet)
            return r >= 0 && r < size && c >= 0 && c < size && modules[r][c]
        }
        return stride(from: 0, to: side, by: 2).map { row in
            let cells = (0 ..< side).map { column -> Character in
                switch (dark(row, column), row + 1 < side && dark(row + 1, column)) {
                case (true, true): "█"
                case (true, false): "▀"
                case (false, true): "▄"
                case (false, false): " "
                }
            }
            return "\u{1B}[30;107m" + String(cells) + "\u{1B}[0m"
        }
    }
}

/// A symbol being built: its modules and which of them are function patterns (finders, separators, timing,
/// alignment, format areas, the dark module), which data and masks leave alone.
struct Symbol {
    var modules: [[Bool]]
    var function: [[Bool]]
    let size: Int

    init(version: Int) {
        size = 17 + 4 * version
        modules = Array(repeating: Array(repeating: false, count: size), count: size)
        function = modules
        for (row, column) in [(0, 0), (0, size - 7), (size - 7, 0)] { finder(row, column) }
        for index in 8 ..< size - 8 {
            set(6, index, index % 2 == 0)
            set(index, 6, index % 2 == 0)
        }
        // Versions 2–6 have one alignment pattern, at the far corner's centre (§6.3.6, Annex E).
        if version >= 2 {
            let centre = 4 * version + 10
            for row in centre - 2 ... centre + 2 {
                for column in centre - 2 ... centre + 2 {
                    set(row, column, max(abs(row - centre), abs(column - centre)) != 1)
                }
            }
        }
        // The format areas, written once the mask is chosen, and the dark module.
        for index in 0 ... 8 {
            function[8][index] = true
            function[index][8] = true
        }
        for index in 0 ..< 8 {
            function[8][size - 1 - index] = true
            function[size - 1 - index][8] = true
        }
        set(size - 8, 8, true)
    }

    /// A finder pattern with its separator, its top left corner at (`top`, `left`).
    private mutating func finder(_ top: Int, _ left: Int) {
        for row in top - 1 ... top + 7 {
            for column in left - 1 ... left + 7 where (0 ..< size).contains(row) && (0 ..< size).contains(column) {
                let ring = max(abs(row - (top + 3)), abs(column - (left + 3)))
                set(row, column, ring != 2 && ring != 4)
            }
        }
    }

    private mutating func set(_ row: Int, _ column: Int, _ dark: Bool) {
        modules[row][column] = dark
        function[row][column] = true
    }

    /// The codewords' bits, most significant first, up and down two columns at a time from the bottom right,
    /// stepping over the vertical timing pattern; the remainder bits left light (§7.7.3).
    mutating func place(_ codewords: [UInt8]) {
        var bit = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for step in 0 ..< size {
                let row = upward ? size - 1 - step : step
                for column in [right, right - 1] where !function[row][column] {
                    if bit < codewords.count * 8 {
                        modules[row][column] = codewords[bit / 8] >> (7 - bit % 8) & 1 == 1
                        bit += 1
                    }
                }
            }
            right -= 2
        }
    }

    /// Inverts the data modules where mask `mask`'s condition holds, and writes the format information (§7.8.2).
    mutating func apply(mask: Int) {
        for row in 0 ..< size {
            for column in 0 ..< size where !function[row][column] && Self.masks(mask, row, column) {
                modules[row][column].toggle()
            }
        }
        writeFormat(mask: mask)
    }

    static func masks(_ mask: Int, _ i: Int, _ j: Int) -> Bool {
        switch mask {
        case 0: (i + j) % 2 == 0
        case 1: i % 2 == 0
        case 2: j % 3 == 0
        case 3: (i + j) % 3 == 0
        case 4: (i / 2 + j / 3) % 2 == 0
        case 5: i * j % 2 + i * j % 3 == 0
        case 6: (i * j % 2 + i * j % 3) % 2 == 0
        default: ((i + j) % 2 + i * j % 3) % 2 == 0
        }
    }

    /// The 15 format bits, level M (00) and the mask, with their BCH code (generator 0x537), masked with 0x5412,
    /// written twice: around the top left finder, and split between the other two (§7.9.1).
    private mutating func writeFormat(mask: Int) {
        let value = 0b00 << 3 | mask
        var remainder = value << 10
        for shift in stride(from: 14, through: 10, by: -1) where remainder >> shift & 1 == 1 {
            remainder ^= 0x537 << (shift - 10)
        }
        let bits = (value << 10 | remainder) ^ 0x5412
        let bit = { (index: Int) in bits >> index & 1 == 1 }
        for index in 0 ... 5 { modules[index][8] = bit(index) }
        modules[7][8] = bit(6)
        modules[8][8] = bit(7)
        modules[8][7] = bit(8)
        for index in 9 ..< 15 { modules[8][14 - index] = bit(index) }
        for index in 0 ..< 8 { modules[8][size - 1 - index] = bit(index) }
        for index in 8 ..< 15 { modules[size - 15 + index][8] = bit(index) }
    }

    /// The penalty of the masked symbol (§7.8.3): runs of five or more of one colour in a row or column (N1 = 3,
    /// plus one a module beyond five), 2 × 2 blocks of one colour (N2 = 3), the finder-like 1:1:3:1:1 with four light
    /// modules on a side (N3 = 40), and the dark share's distance from half (N4 = 10 every 5 %).
    var penalty: Int {
        var total = 0
        let columns = (0 ..< size).map { column in modules.map { $0[column] } }
        for line in modules + columns {
            var run = 1
            for index in 1 ... size {
                if index < size, line[index] == line[index - 1] {
                    run += 1
                    continue
                }
                if run >= 5 { total += 3 + run - 5 }
                run = 1
            }
            let pattern = [true, false, true, true, true, false, true]
            for start in 0 ... size - 7 where Array(line[start ..< start + 7]) == pattern {
                let before = start >= 4 && line[start - 4 ..< start].allSatisfy { !$0 }
                let after = start + 11 <= size && line[start + 7 ..< start + 11].allSatisfy { !$0 }
                if before || after { total += 40 }
            }
        }
        for row in 0 ..< size - 1 {
            for column in 0 ..< size - 1 {
                let colour = modules[row][column]
                if modules[row][column + 1] == colour, modules[row + 1][column] == colour,
                    modules[row + 1][column + 1] == colour
                {
                    total += 3
                }
            }
        }
        let dark = modules.reduce(0) { $0 + $1.filter { $0 }.count }
        total += abs(dark * 20 - size * size * 10) / (size * size) * 10
        return total
    }
}

/// Reed–Solomon error correction over GF(256) with the field polynomial 0x11D and α = 2 (§7.5.2).
enum ReedSolomon {
    /// Products in the field.
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var (a, b, product) = (Int(a), Int(b), 0)
        while b > 0 {
            if b & 1 == 1 { product ^= a }
            a <<= 1
            if a & 0x100 != 0 { a ^= 0x11D }
            b >>= 1
        }
        return UInt8(product)
    }

    /// The generator polynomial (x − α⁰)(x − α¹)…(x − α^(degree−1)), its coefficients from the highest power after
    /// the leading 1.
    static func generator(degree: Int) -> [UInt8] {
        var coefficients = [UInt8](repeating: 0, count: degree - 1) + [1]
        var root: UInt8 = 1
        for _ in 0 ..< degree {
            for index in 0 ..< degree {
                coefficients[index] = multiply(coefficients[index], root)
                if index + 1 < degree { coefficients[index] ^= coefficients[index + 1] }
            }
            root = multiply(root, 2)
        }
        return coefficients
    }

    /// The remainder of `data` × x^degree divided by the generator: the block's error correction codewords.
    static func remainder(_ data: [UInt8], divisor: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: divisor.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for index in divisor.indices { result[index] ^= multiply(divisor[index], factor) }
        }
        return result
    }
}
