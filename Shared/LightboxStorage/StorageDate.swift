import Foundation
import GRDB

/// A date as GRDB stores one ("yyyy-MM-dd HH:mm:ss.SSS" in UTC, to the nearest millisecond), written
/// by arithmetic instead of GRDB's DateFormatter: formatting through ICU cost lightbox-auth a tenth
/// of its time while it wrote the audit entries of a busy picker. The text is exactly GRDB's, so
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
