import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// What a TCX or GPX reader's parser delegate reports besides the elements it keeps.
protocol XMLFileDelegate: XMLParserDelegate {
    /// Why the content is refused, when it is (set while parsing).
    var failure: String? { get }
    /// The element still open, if any, once parsing has ended.
    var openElement: String? { get }
}

/// Parses an XML file with a reader's delegate, turning every way it can fail into one sentence naming the file.
enum XMLFile {
    static func parse(path: String, with delegate: some XMLFileDelegate) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImportError("\(path): cannot be read (no such file, or no permission).")
        }
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        guard parser.parse(), delegate.failure == nil else {
            let reason = delegate.failure ?? parser.parserError.map { "\($0.localizedDescription)" } ?? "malformed XML"
            throw ImportError("\(path): line \(parser.lineNumber), column \(parser.columnNumber): \(reason).")
        }
        // FoundationXML accepts a document cut short; an element still open at the end means a truncated file.
        if let open = delegate.openElement {
            throw ImportError("\(path): line \(parser.lineNumber): the XML ends inside <\(open)> (truncated).")
        }
    }
}
