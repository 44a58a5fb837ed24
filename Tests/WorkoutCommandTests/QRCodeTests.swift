import Foundation
import TestSupport
import Testing

@testable import WorkoutWeb

/// The terminal's QR code of the page's URL, against two implementations we did not write: python-qrcode (PyPI, in
/// the FIT tests' environment) makes the same symbol module for module at each version and mask, and ZBar's
/// `zbarimg` reads our symbols back to the text.
@Suite(.blockingWaits, .timeLimit(.minutes(2))) struct QRCodeTests {
    /// Texts that need each of versions 1–6 at level M (14, 26, 42, 62, 84 and 106 bytes are their limits).
    static let texts = [
        "http://a.b/", "http://192.168.1.20:8080/", "http://192.168.1.20:8080/?token=0123456789",
        "http://192.168.178.20:8080/?token=0123456789abcdef0123456789ab",
        "http://[2001:db8::1]:8080/?token=0123456789abcdef0123456789abcdef0123456789abcdef012",
        "http://[2001:db8:85a3::8a2e:370:7334]:65535/?token=0123456789abcdef0123456789abcdef0123456789abcdef0123",
    ]

    @Test func everyVersionAndMaskIsPythonQRCodesSymbol() throws {
        var codes: [QRCode] = []
        var request: [[String]] = []
        for text in Self.texts {
            for mask in 0 ..< 8 {
                let code = try #require(QRCode(text, mask: mask))
                codes.append(code)
                request.append([text, String(code.version), String(code.mask)])
            }
        }
        let versions: [Int] = codes.map(\.version)
        #expect(versions == (1 ... 6).flatMap { Array(repeating: $0, count: 8) })
        let script = """
            import json, sys, qrcode
            out = []
            for text, version, mask in json.loads(sys.argv[1]):
                q = qrcode.QRCode(version=int(version), error_correction=qrcode.constants.ERROR_CORRECT_M,
                                  border=0, mask_pattern=int(mask))
                q.add_data(text.encode(), optimize=0)
                q.make(fit=False)
                out.append(["".join("1" if m else "0" for m in row) for row in q.get_matrix()])
            print(json.dumps(out))
            """
        let arguments = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
        let output = try ExportOracle.run(["-c", script, arguments], useScript: false)
        let theirs = try #require(try JSONSerialization.jsonObject(with: output) as? [[String]])
        let ours: [[String]] = codes.map { code in code.modules.map { row in String(row.map { $0 ? "1" : "0" }) } }
        #expect(theirs.count == ours.count)
        for (index, (mine, reference)) in zip(ours, theirs).enumerated() {
            #expect(mine == reference, "version \(codes[index].version), mask \(codes[index].mask)")
        }
    }

    @Test func zbarReadsEachVersionBack() throws {
        let zbar = "/usr/bin/zbarimg"
        guard FileManager.default.isExecutableFile(atPath: zbar) else {
            Issue.record("\(zbar) is missing: run scripts/install-dependencies.sh (zbar-tools).")
            return
        }
        let directory = try TemporaryDirectory()
        for text in Self.texts {
            let code = try #require(QRCode(text))
            let path = directory.file("code-\(code.version).pbm")
            try Self.portableBitmap(code).write(to: URL(fileURLWithPath: path))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: zbar)
            process.arguments = ["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", path]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let (read, ended) = readToEnd([output], within: 30)
            #expect(ended && process.exits(within: 10))
            #expect(String(decoding: read[0], as: UTF8.self) == text + "\n", "version \(code.version)")
        }
    }

    @Test func tooLongATextHasNoCodeAndTheTerminalDrawsTwoRowsALine() throws {
        #expect(QRCode(String(repeating: "x", count: QRCode.capacity + 1)) == nil)
        let code = try #require(QRCode(String(repeating: "x", count: QRCode.capacity)))
        #expect(code.version == 6 && code.size == 41)
        // 41 modules and a quiet zone of 4 on each side: 49 columns, 25 lines of two rows.
        let lines = code.terminalLines()
        #expect(lines.count == 25)
        #expect(lines.allSatisfy { $0.hasPrefix("\u{1B}[30;107m") && $0.hasSuffix("\u{1B}[0m") })
        #expect(lines.map { $0.dropFirst(9).dropLast(4).count } == Array(repeating: 49, count: 25))
        // The top left finder's first two rows: four light modules, then seven dark over dark, five light, dark.
        #expect(lines[2].dropFirst(9).prefix(11) == "    █▀▀▀▀▀█")
    }

    /// A plain PBM of the code, eight pixels a module and a quiet zone of four modules.
    static func portableBitmap(_ code: QRCode) -> Data {
        let scale = 8
        let side = (code.size + 8) * scale
        var text = "P1\n\(side) \(side)\n"
        for y in 0 ..< side {
            let row = y / scale - 4
            let pixels = (0 ..< side).map { x -> String in
                let column = x / scale - 4
                let dark =
                    (0 ..< code.size).contains(row) && (0 ..< code.size).contains(column) && code.modules[row][column]
                return dark ? "1" : "0"
            }
            text += pixels.joined(separator: " ") + "\n"
        }
        return Data(text.utf8)
    }
}
