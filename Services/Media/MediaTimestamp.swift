import Foundation

/// The two ways media files write a moment: EXIF's `2024:06:01 12:30:45` and ISO 8601 as movie
/// metadata carries it (`2024-05-01T10:00:00.000000Z`, `2019-07-24T11:25:40+0300`). Parsed by
/// hand rather than with a formatter: formatters on Linux reject FFmpeg's six fraction digits and
/// Apple's `+0300`, and a parser that never guesses is simpler to trust.
enum MediaTimestamp {
    /// An EXIF date-time. EXIF before 2.31 carries no zone, so it is read as UTC unless `offset`
    /// (OffsetTimeOriginal, `+02:00`) says where it was taken. Blank or zero dates (`0000:00:00
    /// 00:00:00`, which cameras write when the clock was never set) give nil.
    static func exif(_ text: String, offset: String? = nil) -> Date? {
        guard let fields = dateFields(Substring(text.trimmingCharacters(in: .whitespaces))) else { return nil }
        let seconds = offset.flatMap { zoneOffset(Substring($0.trimmingCharacters(in: .whitespaces))) } ?? 0
        return date(fields, offsetSeconds: seconds)
    }

    /// An ISO 8601 timestamp with an optional fraction and an optional zone (none means UTC).
    static func iso8601(_ text: String) -> Date? {
        let text = Substring(text.trimmingCharacters(in: .whitespaces))
        guard let fields = dateFields(text) else { return nil }
        var rest = text.dropFirst(19)
        if rest.first == "." || rest.first == "," {
            rest = rest.dropFirst().drop { $0.isASCII && $0.isNumber }
        }
        guard rest.isEmpty || rest == "Z" || rest.first == "+" || rest.first == "-" else { return nil }
        guard let offset = rest.isEmpty ? 0 : zoneOffset(rest) else { return nil }
        return date(fields, offsetSeconds: offset)
    }

    /// Year, month, day, hour, minute, second from the first 19 characters, whatever single
    /// characters separate them (`:`, `-`, `T`, space).
    private static func dateFields(_ text: Substring) -> [Int]? {
        let characters = Array(text.prefix(19))
        guard characters.count == 19 else { return nil }
        let ranges = [0..<4, 5..<7, 8..<10, 11..<13, 14..<16, 17..<19]
        var fields: [Int] = []
        for range in ranges {
            let digits = characters[range]
            guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(String(digits)) else { return nil }
            fields.append(value)
        }
        let (month, day, hour, minute, second) = (fields[1], fields[2], fields[3], fields[4], fields[5])
        guard fields[0] > 0, (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour),
              (0...59).contains(minute), (0...60).contains(second) else { return nil }
        return fields
    }

    /// Seconds east of UTC from `Z`, `+02`, `+0200` or `+02:00`.
    private static func zoneOffset(_ text: Substring) -> Int? {
        if text == "Z" { return 0 }
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let digits = text.dropFirst().filter { $0 != ":" }
        guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let hours = Int(digits.prefix(2)), let minutes = Int(digits.dropFirst(2).isEmpty ? "0" : String(digits.dropFirst(2))),
              hours <= 14, minutes < 60 else { return nil }
        return (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
    }

    private static func date(_ fields: [Int], offsetSeconds: Int) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: fields[0], month: fields[1], day: fields[2],
                                        hour: fields[3], minute: fields[4], second: fields[5])
        // Day 31 of a 30-day month would roll over silently; such dates are broken, not next month.
        guard components.isValidDate(in: calendar) || fields[5] == 60, let date = calendar.date(from: components) else { return nil }
        return date.addingTimeInterval(TimeInterval(-offsetSeconds))
    }
}
