import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An element of the small XML documents S3 answers with (listings, multipart replies, errors), as a tree.
struct S3XMLElement: Sendable {
    var name: String
    var text: String
    var children: [S3XMLElement]

    /// Parses `data`; nil when it is not well-formed XML.
    static func parse(_ data: Data) -> S3XMLElement? {
        let builder = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else { return nil }
        return root
    }

    /// The first child called `name`.
    func child(_ name: String) -> S3XMLElement? { children.first { $0.name == name } }

    /// Every child called `name`, in document order.
    func all(_ name: String) -> [S3XMLElement] { children.filter { $0.name == name } }

    /// The text of the first child called `name`.
    func text(of name: String) -> String? { child(name)?.text }
}

private final class TreeBuilder: NSObject, XMLParserDelegate {
    var stack: [S3XMLElement] = []
    var root: S3XMLElement?

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        stack.append(S3XMLElement(name: elementName, text: "", children: []))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }
}
