import Foundation

/// Spells JSON values as `WireCoding.makeEncoder()` does — ISO 8601 dates in whole seconds, slashes
/// unescaped — into one growing buffer. `WireJSONEncoder` drives it: which values go where comes
/// from each type's own `encode(to:)`.
///
/// The buffer is its own memory rather than an array: an array checks that it is uniquely
/// referenced and has room on every append, and a reply is written a few bytes at a time.
/// Noncopyable, so that the memory has one owner.
public struct WireJSONWriter: ~Copyable {
    /// A value this writer does not spell the way JSONEncoder would (a date before 1582-10-15 or
    /// after year 9999, a non-finite number): the caller encodes the whole value with JSONEncoder instead.
    public struct Unwritable: Error {}

    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    public init(capacity: Int = 512) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    /// What has been written so far.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// What has been written so far, as `Data`.
    public var data: Data { Data(bytes: base, count: count) }

    // MARK: Values

    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            reserve(utf8.count + 2)
            base[count] = UInt8(ascii: "\"")
            count += 1
            var plainStart = 0
            for index in Self.plainWordsLength(utf8)..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                append(UnsafeBufferPointer(rebasing: utf8[plainStart..<index]))
                appendEscaped(byte)
                plainStart = index + 1
            }
            append(UnsafeBufferPointer(rebasing: utf8[plainStart...]))
            append(UInt8(ascii: "\""))
        }
    }

    public mutating func integer<Value: BinaryInteger>(_ value: Value) {
        guard let value = Int64(exactly: value) else {
            var text = String(value)
            text.withUTF8 { append($0) }
            return
        }
        // The digits straight into the buffer, from the last one back.
        reserve(20)
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        count += digits
        var index = count
        repeat {
            index -= 1
            base[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
    }

    public mutating func number(_ value: Double) throws {
        guard value.isFinite else { throw Unwritable() }
        if value == value.rounded(), abs(value) < 1e15 {
            // An integral double's digits, without making its description.
            if value == 0, value.sign == .minus { append(StaticString("-0")) } else { integer(Int64(value)) }
            return
        }
        // JSONEncoder writes a double's description without a trailing ".0".
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        text.withUTF8 { append($0) }
    }

    public mutating func null() {
        append(StaticString("null"))
    }

    public mutating func bool(_ value: Bool) {
        append(value ? StaticString("true") : StaticString("false"))
    }

    /// `yyyy-MM-ddTHH:mm:ssZ`, the fraction dropped (toward the past), as the `.iso8601` strategy writes.
    /// Dates before the Gregorian calendar began (1582-10-15) are left to JSONEncoder, which writes
    /// them in the Julian calendar.
    public mutating func date(_ value: Date) throws {
        guard value.timeIntervalSince1970 >= Self.gregorianCalendarStart else { throw Unwritable() }
        var seconds = time_t(value.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { throw Unwritable() }
        let year = Int(parts.tm_year) + 1900
        guard year <= 9999 else { throw Unwritable() }
        reserve(22)
        append(UInt8(ascii: "\""))
        appendTwoDigits(year / 100)
        appendTwoDigits(year % 100)
        append(UInt8(ascii: "-"))
        appendTwoDigits(Int(parts.tm_mon) + 1)
        append(UInt8(ascii: "-"))
        appendTwoDigits(Int(parts.tm_mday))
        append(UInt8(ascii: "T"))
        appendTwoDigits(Int(parts.tm_hour))
        append(UInt8(ascii: ":"))
        appendTwoDigits(Int(parts.tm_min))
        append(UInt8(ascii: ":"))
        appendTwoDigits(Int(parts.tm_sec))
        append(UInt8(ascii: "Z"))
        append(UInt8(ascii: "\""))
    }

    /// 1582-10-15T00:00:00Z, in seconds since 1970.
    static let gregorianCalendarStart: TimeInterval = -12_219_292_800

    /// A bracket, comma or colon between values.
    mutating func punctuation(_ byte: UInt8) {
        append(byte)
    }

    // MARK: Details

    /// Room for `extra` more bytes.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(toFit: extra) }
    }

    /// A buffer with room for `extra` more bytes, at least twice as large.
    @inline(never)
    private mutating func grow(toFit extra: Int) {
        let grown = max(count + extra, 2 * capacity)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.initialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = grown
    }

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inline(__always)
    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress else { return }
        reserve(bytes.count)
        (base + count).initialize(from: start, count: bytes.count)
        count += bytes.count
    }

    private mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// How many leading bytes of `utf8`, in whole words of eight, need no escape (no control
    /// character, `"` or `\`): tested a word at a time, each test setting a byte's top bit where
    /// it holds, since member names and most values need none.
    private static func plainWordsLength(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        guard let start = utf8.baseAddress else { return 0 }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let tops: UInt64 = 0x8080_8080_8080_8080
        var length = 0
        while length + 8 <= utf8.count {
            let word = UnsafeRawPointer(start + length).loadUnaligned(as: UInt64.self)
            let quote = word ^ (ones &* UInt64(UInt8(ascii: "\""))), backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
            let control = (word &- ones &* 0x20) & ~word
            let quoted = (quote &- ones) & ~quote, escaped = (backslash &- ones) & ~backslash
            guard (control | quoted | escaped) & tops == 0 else { break }
            length += 8
        }
        return length
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): append(byte)
        case 0x08: append(UInt8(ascii: "b"))
        case 0x0C: append(UInt8(ascii: "f"))
        case 0x0A: append(UInt8(ascii: "n"))
        case 0x0D: append(UInt8(ascii: "r"))
        case 0x09: append(UInt8(ascii: "t"))
        default:
            append(StaticString("u00"))
            appendHexDigit(byte >> 4)
            appendHexDigit(byte & 0x0F)
        }
    }

    private mutating func appendHexDigit(_ nibble: UInt8) {
        append(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10)
    }

    /// `value` (0…99) as two digits.
    private mutating func appendTwoDigits(_ value: Int) {
        append(UInt8(ascii: "0") + UInt8(value / 10))
        append(UInt8(ascii: "0") + UInt8(value % 10))
    }
}
