import Foundation

/// A message that writes its wire JSON itself. Foundation's JSONEncoder spends its time per object
/// in generic containers, so encoding a page of asset summaries outweighed everything else its
/// request did; the replies apps ask for most (and the picker's audit batches) write straight
/// into bytes instead. Each stays Codable (clients decode it as before); `WireJSONTests` holds
/// every writer to the JSON the encoder makes of the same value.
public protocol WireJSONWritable {
    func write(to json: inout WireJSONWriter) throws
}

/// Writes JSON as `WireCoding.makeEncoder()` does — ISO 8601 dates in whole seconds, slashes
/// unescaped, nil optionals left out — into one growing byte buffer.
public struct WireJSONWriter {
    /// A value this writer does not spell the way JSONEncoder would (a year outside 0…9999, a
    /// non-finite number): the caller encodes the whole value with JSONEncoder instead.
    public struct Unwritable: Error {}

    public private(set) var bytes: [UInt8] = []
    /// The next member or element is the first of its container, so no comma goes before it.
    private var isFirstInContainer = true

    public init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    // MARK: Containers

    public mutating func object(_ members: (inout WireJSONWriter) throws -> Void) rethrows {
        bytes.append(UInt8(ascii: "{"))
        isFirstInContainer = true
        try members(&self)
        bytes.append(UInt8(ascii: "}"))
        isFirstInContainer = false
    }

    /// A dictionary as an object, its keys in the dictionary's order (as JSONEncoder writes it).
    public mutating func object<Value: WireJSONWritable>(_ members: [String: Value]) throws {
        try object { json in
            for (name, value) in members {
                json.key(name)
                try value.write(to: &json)
            }
        }
    }

    public mutating func array<Elements: Sequence>(_ elements: Elements,
                                                   _ write: (inout WireJSONWriter, Elements.Element) throws -> Void) rethrows {
        bytes.append(UInt8(ascii: "["))
        isFirstInContainer = true
        for element in elements {
            if !isFirstInContainer { bytes.append(UInt8(ascii: ",")) }
            try write(&self, element)
            isFirstInContainer = false
        }
        bytes.append(UInt8(ascii: "]"))
        isFirstInContainer = false
    }

    /// Starts an object member; the value written next belongs to it.
    public mutating func key(_ name: StaticString) {
        if !isFirstInContainer { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        // Byte by byte: an array literal here was made and appended as a sequence for every member.
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        isFirstInContainer = false
    }

    /// Starts an object member whose name is data (a dictionary's key), escaped as any string is.
    public mutating func key(_ name: String) {
        if !isFirstInContainer { bytes.append(UInt8(ascii: ",")) }
        string(name)
        bytes.append(UInt8(ascii: ":"))
        isFirstInContainer = false
    }

    // MARK: Members (nil optionals are left out, as synthesized Codable does)

    /// A member whose value `write` spells, left out when the value is nil.
    private mutating func member<Value>(_ name: StaticString, _ value: Value?, _ write: (inout WireJSONWriter, Value) throws -> Void) rethrows {
        guard let value else { return }
        key(name)
        try write(&self, value)
    }

    public mutating func member(_ name: StaticString, _ value: String?) {
        member(name, value) { $0.string($1) }
    }

    public mutating func member<Value: RawRepresentable>(_ name: StaticString, _ value: Value?) where Value.RawValue == String {
        member(name, value?.rawValue)
    }

    public mutating func member<Value: BinaryInteger>(_ name: StaticString, _ value: Value?) {
        member(name, value) { $0.integer($1) }
    }

    public mutating func member(_ name: StaticString, _ value: Double?) throws {
        try member(name, value) { try $0.number($1) }
    }

    public mutating func member(_ name: StaticString, _ value: Bool?) {
        member(name, value) { $0.bool($1) }
    }

    public mutating func member(_ name: StaticString, _ value: Date?) throws {
        try member(name, value) { try $0.date($1) }
    }

    public mutating func member(_ name: StaticString, _ value: (any WireJSONWritable)?) throws {
        try member(name, value) { try $1.write(to: &$0) }
    }

    public mutating func member<Value: WireJSONWritable>(_ name: StaticString, _ values: [String: Value]?) throws {
        try member(name, values) { try $0.object($1) }
    }

    public mutating func member<Element: RawRepresentable>(_ name: StaticString, _ values: [Element]) where Element.RawValue == String {
        key(name)
        array(values) { $0.string($1.rawValue) }
    }

    public mutating func member<Element: WireJSONWritable>(_ name: StaticString, _ values: [Element]) throws {
        key(name)
        try array(values) { try $1.write(to: &$0) }
    }

    // MARK: Values

    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var plainStart = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart..<index]))
                appendEscaped(byte)
                plainStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func integer<Value: BinaryInteger>(_ value: Value) {
        guard let value = Int64(exactly: value) else {
            bytes.append(contentsOf: String(value).utf8)
            return
        }
        // Digits written straight into the buffer, least significant first, then put in order:
        // String(value) made and freed a string for every number of every asset of a page.
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[start...].reverse()
    }

    public mutating func number(_ value: Double) throws {
        guard value.isFinite else { throw Unwritable() }
        // JSONEncoder writes integral doubles without ".0".
        if value == value.rounded(), abs(value) < 1e15 {
            integer(Int64(value))
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
    }

    public mutating func null() {
        bytes.append(contentsOf: "null".utf8)
    }

    public mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// `yyyy-MM-ddTHH:mm:ssZ`, the fraction dropped (toward the past), as the `.iso8601` strategy writes.
    public mutating func date(_ value: Date) throws {
        var seconds = time_t(value.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { throw Unwritable() }
        let year = Int(parts.tm_year) + 1900
        guard (0...9999).contains(year) else { throw Unwritable() }
        bytes.append(UInt8(ascii: "\""))
        appendDigits(year, count: 4)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(Int(parts.tm_mon) + 1, count: 2)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(Int(parts.tm_mday), count: 2)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(Int(parts.tm_hour), count: 2)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(Int(parts.tm_min), count: 2)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(Int(parts.tm_sec), count: 2)
        bytes.append(UInt8(ascii: "Z"))
        bytes.append(UInt8(ascii: "\""))
    }

    // MARK: Details

    private mutating func appendEscaped(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            bytes.append(contentsOf: [byte >> 4, byte & 0x0F].map { $0 < 10 ? UInt8(ascii: "0") + $0 : UInt8(ascii: "a") + $0 - 10 })
        }
    }

    private mutating func appendDigits(_ value: Int, count: Int) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
