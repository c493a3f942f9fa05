import Foundation

/// Reads a request header's `v`, `id` and `op` in one pass over its bytes, checking that the whole
/// frame is JSON as it goes, without building anything else. A service reads every request's head
/// before it knows the body's type, and JSONDecoder would parse the whole frame for those three
/// fields (then again for the body).
///
/// It reads only the plainest JSON: ASCII throughout, no `\u` escapes, no escapes in keys or in
/// the three fields, `v` a plain integer, and each of the three fields at most once. For anything
/// else it gives up (nil) and JSONDecoder reads the frame, with its own words for what is wrong:
/// whatever this scanner accepts, JSONDecoder accepts too, with the same head (`RequestHeadTests`
/// checks that on crafted and mutated frames, and the wire fuzzer on whatever it finds).
enum RequestHeadScanner {
    /// The deepest nesting read; deeper frames are left to JSONDecoder.
    static let maximumDepth = 64

    static func scan(_ data: Data) -> RequestHead? {
        data.withUnsafeBytes { bytes in
            var scanner = Scanner(bytes: bytes)
            return scanner.head()
        }
    }

    private struct Scanner: PlainJSONReading {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        init(bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
        }

        mutating func head() -> RequestHead? {
            var head = RequestHead(v: nil, id: nil, op: nil)
            var seen: (v: Bool, id: Bool, op: Bool) = (false, false, false)
            skipSpace()
            guard take(UInt8(ascii: "{")) else { return nil }
            skipSpace()
            if !take(UInt8(ascii: "}")) {
                while true {
                    guard let (keyStart, keyEnd, keyEscaped) = string(), !keyEscaped else { return nil }
                    let key = text(keyStart, keyEnd)
                    skipSpace()
                    guard take(UInt8(ascii: ":")) else { return nil }
                    skipSpace()
                    switch key {
                    case "v":
                        guard !seen.v, let version = integer() else { return nil }
                        seen.v = true
                        head.v = version
                    case "id":
                        guard !seen.id, let (start, end, escaped) = string(), !escaped else { return nil }
                        seen.id = true
                        head.id = text(start, end)
                    case "op":
                        guard !seen.op, let (start, end, escaped) = string(), !escaped else { return nil }
                        seen.op = true
                        head.op = OperationName(rawValue: text(start, end))
                    default:
                        guard skipValue(depth: 1) else { return nil }
                    }
                    skipSpace()
                    if take(UInt8(ascii: ",")) {
                        skipSpace()
                        continue
                    }
                    guard take(UInt8(ascii: "}")) else { return nil }
                    break
                }
            }
            skipSpace()
            return index == bytes.count ? head : nil
        }

        func text(_ start: Int, _ end: Int) -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }

        /// A plain integer (an optional minus, then digits without a leading zero) that fits an Int.
        mutating func integer() -> Int? {
            let start = index
            _ = take(UInt8(ascii: "-"))
            guard let first = current, (0x30...0x39).contains(first) else { return nil }
            index += 1
            if first != 0x30 { while let byte = current, (0x30...0x39).contains(byte) { index += 1 } }
            if let byte = current, byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
                || (0x30...0x39).contains(byte) {
                return nil
            }
            return Int(text(start, index))
        }

        /// Any JSON value at `index`, nested at most `maximumDepth` deep.
        mutating func skipValue(depth: Int) -> Bool {
            guard depth <= RequestHeadScanner.maximumDepth, let byte = current else { return false }
            switch byte {
            case UInt8(ascii: "\""): return string() != nil
            case UInt8(ascii: "{"): return skipContainer(closedBy: UInt8(ascii: "}"), depth: depth, keyed: true)
            case UInt8(ascii: "["): return skipContainer(closedBy: UInt8(ascii: "]"), depth: depth, keyed: false)
            case UInt8(ascii: "t"): return skipLiteral("true")
            case UInt8(ascii: "f"): return skipLiteral("false")
            case UInt8(ascii: "n"): return skipLiteral("null")
            default: return skipNumber()
            }
        }

        mutating func skipContainer(closedBy close: UInt8, depth: Int, keyed: Bool) -> Bool {
            index += 1
            skipSpace()
            if take(close) { return true }
            while true {
                if keyed {
                    guard string() != nil else { return false }
                    skipSpace()
                    guard take(UInt8(ascii: ":")) else { return false }
                    skipSpace()
                }
                guard skipValue(depth: depth + 1) else { return false }
                skipSpace()
                if take(close) { return true }
                guard take(UInt8(ascii: ",")) else { return false }
                skipSpace()
            }
        }
    }
}
