import Foundation

/// A frame of the plainest JSON parsed once into a flat array of nodes in document order, for
/// `WireJSONDecoder`. Values stay bytes until they are decoded; an object's members are found by a
/// scan of its keys (objects on the wire are small) rather than by building a dictionary.
///
/// It holds only JSON that `PlainJSONReading` reads (ASCII, no `\u` escapes), without escapes in
/// keys, without a key twice in one object, and nested at most `maximumDepth` deep; anything else
/// fails `init`, and JSONDecoder reads the frame.
final class WireJSONDocument {
    enum Kind: UInt8 { case null, `false`, `true`, number, string, array, object }

    struct Node {
        var kind: Kind
        /// A string with backslash escapes, undone when it is read.
        var isEscaped = false
        /// A scalar's bytes; a string's without its quotes.
        var text: Range<Int> = 0..<0
        /// The index of the node after this one and all it holds.
        var next = 0
        /// A container's elements, or an object's members. An object's nodes are its members' keys
        /// and values in turn.
        var count = 0
        /// The index of the container holding this node; -1 for the root.
        var parent: Int
    }

    /// The deepest nesting read, as `RequestHeadScanner` reads it.
    static let maximumDepth = RequestHeadScanner.maximumDepth
    /// Larger objects are left to JSONDecoder: each key is checked against the ones before it,
    /// and a key asked for that is not where the last one was found is looked for by a scan.
    static let maximumMembers = 256

    let bytes: [UInt8]
    let nodes: [Node]
    /// Decoding met something it does not read as JSONDecoder would. Kept here, not only thrown,
    /// because a Decodable may swallow the error (`try?`) and go on, with a different value.
    private(set) var gaveUp = false

    init?(_ data: Data) {
        let bytes = [UInt8](data)
        guard let nodes = bytes.withUnsafeBytes({ bytes -> [Node]? in
            var parser = Parser(bytes: bytes)
            return parser.document()
        }) else { return nil }
        self.bytes = bytes
        self.nodes = nodes
    }

    /// The first number node that did not fit the type asked of it, and that type, when JSONDecoder
    /// would not have read it either (`1.0` as an Int it reads, so that is no misfit).
    private(set) var misfit: (node: Int, type: Any.Type)?

    func noteMisfit(_ node: Int, as type: Any.Type) {
        guard misfit == nil, nodes[node].kind == .number else { return }
        if type is any FixedWidthInteger.Type, let value = Double(String(decoding: bytes[nodes[node].text], as: UTF8.self)),
           value.rounded() == value, abs(value) < 0x1p53 {
            return
        }
        misfit = (node, type)
    }

    /// Marks the decoding as not to be trusted; returns the error to throw.
    func giveUp() -> WireJSONDecoder.GiveUp {
        gaveUp = true
        return WireJSONDecoder.GiveUp()
    }

    // MARK: Values

    /// The node of `object`'s member named `name`, nil when it has none. A name outside ASCII
    /// gives up: String's equality could match it to an ASCII key (K and the Kelvin sign).
    func member(named name: String, in object: Int) -> Int? {
        let first = object + 1, end = nodes[object].next
        // Members are mostly asked for in the order they were written: look after the last one found first.
        var key = memberHint.object == object && memberHint.key < end ? memberHint.key : first
        var name = name
        let found = name.withUTF8 { name in
            bytes.withUnsafeBytes { bytes -> Int? in
                for _ in 0..<nodes[object].count {
                    if key == end { key = first }
                    if Self.spells(bytes, nodes[key].text, UnsafeRawBufferPointer(name)) { return key + 1 }
                    key = nodes[key + 1].next
                }
                return nil
            }
        }
        guard let found else {
            if name.utf8.contains(where: { $0 >= 0x80 }) { _ = giveUp() }
            return nil
        }
        memberHint = (object, nodes[found].next)
        return found
    }

    /// Where `member(named:in:)` looks first: after the member it found last.
    private var memberHint = (object: -1, key: 0)

    /// Whether `text` of `bytes` is `name`.
    static func spells(_ bytes: UnsafeRawBufferPointer, _ text: Range<Int>, _ name: UnsafeRawBufferPointer) -> Bool {
        text.count == name.count && (name.isEmpty || memcmp(bytes.baseAddress! + text.lowerBound, name.baseAddress!, name.count) == 0)
    }

    /// The key of `object`'s member whose key is `node`.
    func key(_ node: Int) -> String {
        String(decoding: bytes[nodes[node].text], as: UTF8.self)
    }

    func string(_ node: Int) -> String? {
        guard nodes[node].kind == .string else { return nil }
        let text = bytes[nodes[node].text]
        guard nodes[node].isEscaped else { return String(decoding: text, as: UTF8.self) }
        var unescaped: [UInt8] = []
        unescaped.reserveCapacity(text.count)
        var escaping = false
        for byte in text {
            if escaping {
                switch byte {
                case UInt8(ascii: "b"): unescaped.append(0x08)
                case UInt8(ascii: "f"): unescaped.append(0x0C)
                case UInt8(ascii: "n"): unescaped.append(0x0A)
                case UInt8(ascii: "r"): unescaped.append(0x0D)
                case UInt8(ascii: "t"): unescaped.append(0x09)
                default: unescaped.append(byte)  // \" \\ \/
                }
                escaping = false
            } else if byte == UInt8(ascii: "\\") {
                escaping = true
            } else {
                unescaped.append(byte)
            }
        }
        return String(decoding: unescaped, as: UTF8.self)
    }

    /// A plain integer (an optional minus, then digits without a leading zero, not `-0`) that
    /// fits `Integer`. JSONDecoder also reads `1.0` or `1e2` as integers, by ways not copied here.
    func integer<Integer: FixedWidthInteger>(_ node: Int, as _: Integer.Type = Integer.self) -> Integer? {
        guard nodes[node].kind == .number else { return nil }
        var digits = bytes[nodes[node].text]
        let isNegative = digits.first == UInt8(ascii: "-")
        if isNegative { digits = digits.dropFirst() }
        guard digits.first != UInt8(ascii: "0") || (digits.count == 1 && !isNegative) else { return nil }
        var value: Integer = 0
        for byte in digits {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowedAgain) = isNegative
                ? shifted.subtractingReportingOverflow(Integer(digit)) : shifted.addingReportingOverflow(Integer(digit))
            guard !overflowed, !overflowedAgain else { return nil }
            value = sum
        }
        return value
    }

    /// Any number, correctly rounded (strtod, as JSONDecoder reads it). Like JSONDecoder, nothing
    /// that overflows or underflows to zero: those give up and JSONDecoder says why.
    func floatingPoint<Floating: BinaryFloatingPoint & LosslessStringConvertible>(_ node: Int,
                                                                                as _: Floating.Type = Floating.self) -> Floating? {
        guard nodes[node].kind == .number else { return nil }
        let text = bytes[nodes[node].text]
        guard let value = Floating(String(decoding: text, as: UTF8.self)), value.isFinite else { return nil }
        let significand = text.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
        guard value != 0 || !significand.contains(where: { (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return value
    }

    /// The coding path JSONDecoder gives `node`: its members' keys, and `Index n` for elements.
    func codingPath(to node: Int) -> [any CodingKey] {
        var path: [any CodingKey] = []
        var child = node
        while nodes[child].parent >= 0 {
            let parent = nodes[child].parent
            if nodes[parent].kind == .object {
                path.append(WireJSONDecoder.PathKey(stringValue: key(child - 1)))
            } else {
                var index = 0
                var element = parent + 1
                while element != child {
                    element = nodes[element].next
                    index += 1
                }
                path.append(WireJSONDecoder.PathKey(index: index))
            }
            child = parent
        }
        return path.reversed()
    }

    // MARK: Parsing

    private struct Parser: PlainJSONReading {
        let bytes: UnsafeRawBufferPointer
        var index = 0
        var nodes: [Node] = []

        init(bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
            nodes.reserveCapacity(bytes.count / 8)
        }

        mutating func document() -> [Node]? {
            skipSpace()
            guard value(in: -1, depth: 1) else { return nil }
            skipSpace()
            return index == bytes.count ? nodes : nil
        }

        mutating func value(in parent: Int, depth: Int) -> Bool {
            guard depth <= WireJSONDocument.maximumDepth, let byte = current else { return false }
            let start = index
            let kind: Kind
            switch byte {
            case UInt8(ascii: "{"): return container(.object, in: parent, depth: depth)
            case UInt8(ascii: "["): return container(.array, in: parent, depth: depth)
            case UInt8(ascii: "\""):
                guard let (start, end, escaped) = string() else { return false }
                append(Node(kind: .string, isEscaped: escaped, text: start..<end, parent: parent))
                return true
            case UInt8(ascii: "t"): kind = .true
            case UInt8(ascii: "f"): kind = .false
            case UInt8(ascii: "n"): kind = .null
            default:
                guard skipNumber() else { return false }
                append(Node(kind: .number, text: start..<index, parent: parent))
                return true
            }
            guard skipLiteral(kind == .true ? "true" : kind == .false ? "false" : "null") else { return false }
            append(Node(kind: kind, parent: parent))
            return true
        }

        mutating func append(_ node: Node) {
            var node = node
            node.next = nodes.count + 1
            nodes.append(node)
        }

        /// An object or array, its nodes after its own; an object's keys are checked as they come.
        mutating func container(_ kind: Kind, in parent: Int, depth: Int) -> Bool {
            let container = nodes.count
            nodes.append(Node(kind: kind, parent: parent))
            index += 1
            skipSpace()
            var count = 0
            if !take(kind == .object ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                repeat {
                    skipSpace()
                    if kind == .object {
                        guard count < WireJSONDocument.maximumMembers, key(in: container) else { return false }
                        skipSpace()
                        guard take(UInt8(ascii: ":")) else { return false }
                        skipSpace()
                    }
                    guard value(in: container, depth: depth + 1) else { return false }
                    count += 1
                    skipSpace()
                } while take(UInt8(ascii: ","))
                guard take(kind == .object ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
            }
            nodes[container].count = count
            nodes[container].next = nodes.count
            return true
        }

        /// A member's key: without escapes, and not one the object already has.
        mutating func key(in object: Int) -> Bool {
            guard let (start, end, escaped) = string(), !escaped else { return false }
            let name = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            var key = object + 1
            while key < nodes.count {
                if WireJSONDocument.spells(bytes, nodes[key].text, name) { return false }
                key = nodes[key + 1].next
            }
            append(Node(kind: .string, text: start..<end, parent: object))
            return true
        }
    }
}
