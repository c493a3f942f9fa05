import Foundation
import GRDB

/// A date as GRDB stores one ("yyyy-MM-dd HH:mm:ss.SSS" in UTC, to the nearest millisecond), written
/// by arithmetic instead of GRDB's DateFormatter, whose formatting through ICU weighed on
/// lightbox-auth while it wrote the audit entries of a busy picker. The text is exactly GRDB's, so
/// what is stored this way sorts, compares and reads back like any other date.
public enum StorageDate {
    /// The text GRDB would store for `date`.
    public static func text(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        // Years 1970 to 9999; any other date is left to GRDB.
        guard milliseconds >= 0, milliseconds < 253_402_300_800_000 else {
            return String.fromDatabaseValue(date.databaseValue) ?? ""
        }
        let total = Int(milliseconds)
        let (year, month, day) = civil(daysSince1970: total / 86_400_000)
        let inDay = total % 86_400_000
        let fields = [(year, 4), (month, 2), (day, 2), (inDay / 3_600_000, 2), (inDay / 60_000 % 60, 2), (inDay / 1000 % 60, 2),
                      (inDay % 1000, 3)]
        let separators: [UInt8] = [UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: ":"),
                                   UInt8(ascii: "."), 0]
        var bytes: [UInt8] = []
        bytes.reserveCapacity(23)
        for ((value, width), separator) in zip(fields, separators) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
            if separator != 0 { bytes.append(separator) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The date of text in exactly the form `text(_:)` writes ("yyyy-MM-dd HH:mm:ss.SSS", years
    /// 1970 to 9999), the very Date GRDB reads from it; nil for any other text (GRDB reads that).
    public static func date(_ text: UnsafeRawBufferPointer) -> Date? {
        guard text.count == 23 else { return nil }
        var position = 0
        func number(_ digits: Int, then separator: UInt8?) -> Int? {
            var value = 0
            for _ in 0..<digits {
                let digit = Int(text[position]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
                position += 1
            }
            if let separator {
                guard text[position] == separator else { return nil }
                position += 1
            }
            return value
        }
        guard let year = number(4, then: UInt8(ascii: "-")), let month = number(2, then: UInt8(ascii: "-")),
              let day = number(2, then: UInt8(ascii: " ")), let hour = number(2, then: UInt8(ascii: ":")),
              let minute = number(2, then: UInt8(ascii: ":")), let second = number(2, then: UInt8(ascii: ".")),
              let millisecond = number(3, then: nil),
              year >= 1970, (1...12).contains(month), (1...daysIn(month: month, of: year)).contains(day), hour < 24, minute < 60,
              second < 60 else { return nil }
        // Summed as Foundation's calendar sums them (the day's start since the reference date, then
        // the time of day with its fraction), so the result is the same Double to the last bit.
        let dayStart = Double((daysSince1970(year: year, month: month, day: day) - 11_323) * 86_400)
        return Date(timeIntervalSinceReferenceDate: dayStart + (Double(hour * 3600 + minute * 60 + second) + Double(millisecond) / 1000))
    }

    static func daysIn(month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Howard Hinnant's `days_from_civil`, for years from 1970.
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian year, month and day of a day number (days since 1970-01-01, not
    /// negative), after Howard Hinnant's `civil_from_days`.
    static func civil(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
