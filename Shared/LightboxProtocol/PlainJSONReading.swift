import Foundation

/// The tokens of the plainest JSON, read the same way by `RequestHeadScanner` and
/// `WireJSONDocument`: ASCII only, and strings without `\u` escapes. Whatever these read is JSON
/// that JSONDecoder reads too; anything else is left to it.
protocol PlainJSONReading {
    var bytes: UnsafeRawBufferPointer { get }
    var index: Int { get set }
}

/// The escapes a plain string may hold: all but `\u`.
let plainJSONEscapes: Set<UInt8> = Set("\"\\/bfnrt".utf8)

extension PlainJSONReading {
    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func take(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        index += 1
        return true
    }

    mutating func skipSpace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    /// A string at `index`: the range of its contents and whether it has escapes; nil when it
    /// is not a plain ASCII JSON string without `\u`.
    mutating func string() -> (Int, Int, Bool)? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        var escaped = false
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return (start, index - 1, escaped)
            case UInt8(ascii: "\\"):
                index += 1
                guard let next = current, plainJSONEscapes.contains(next) else { return nil }
                escaped = true
                index += 1
            case 0x20..<0x80:
                index += 1
            default:
                return nil
            }
        }
        return nil
    }

    /// A JSON number, as RFC 8259 spells it.
    mutating func skipNumber() -> Bool {
        _ = take(UInt8(ascii: "-"))
        guard let first = current, (0x30...0x39).contains(first) else { return false }
        index += 1
        if first != 0x30 { skipDigits() }
        if take(UInt8(ascii: ".")) {
            guard skipDigits() else { return false }
        }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
            guard skipDigits() else { return false }
        }
        return true
    }

    @discardableResult
    mutating func skipDigits() -> Bool {
        let start = index
        while let byte = current, (0x30...0x39).contains(byte) { index += 1 }
        return index > start
    }

    mutating func skipLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] { return false }
        index += count
        return true
    }
}
