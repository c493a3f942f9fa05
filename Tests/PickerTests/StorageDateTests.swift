import Foundation
import GRDB
import LightboxStorage
import Testing

/// StorageDate writes what GRDB's own formatter writes, to the character.
@Suite struct StorageDateTests {
    static func grdb(_ date: Date) -> String? { String.fromDatabaseValue(date.databaseValue) }

    @Test func matchesGRDBsTextForDatesAcrossTheRange() {
        var generator = SystemRandomNumberGenerator()
        var dates: [Date] = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 951_782_400),  // 2000-02-29
                             Date(timeIntervalSince1970: 4_107_542_399.999), Date(timeIntervalSince1970: 253_402_300_799.999),
                             Date(timeIntervalSince1970: 1_700_000_000.0005), Date(timeIntervalSince1970: 1_700_000_000.9995),
                             Date(timeIntervalSince1970: 1_700_000_000.123), Date(timeIntervalSince1970: 1_700_000_000.001), Date()]
        for _ in 0..<50_000 {
            dates.append(Date(timeIntervalSince1970: Double.random(in: 0..<4_200_000_000, using: &generator)))
            // Whole milliseconds, as dates read back from the database are.
            dates.append(Date(timeIntervalSince1970: Double(Int.random(in: 0..<4_200_000_000_000, using: &generator)) / 1000))
        }
        let mismatches = dates.filter { StorageDate.text($0) != Self.grdb($0) }
        let examples = mismatches.prefix(5).map { "\($0.timeIntervalSince1970): \(StorageDate.text($0)) but GRDB \(Self.grdb($0) ?? "nil")" }
        let count = mismatches.count
        #expect(count == 0, "\(examples.joined(separator: "; "))")
    }

    /// Reading the text back gives the very Date GRDB reads from it (cursors and comparisons rely
    /// on equal dates being equal to the bit).
    @Test func readsBackTheDateGRDBReads() throws {
        var generator = SystemRandomNumberGenerator()
        var texts = ["1970-01-01 00:00:00.000", "2000-02-29 23:59:59.999", "2023-11-14 22:13:20.001", "9999-12-31 23:59:59.999"]
        for _ in 0..<50_000 {
            texts.append(StorageDate.text(Date(timeIntervalSince1970: Double(Int.random(in: 0..<4_200_000_000_000, using: &generator)) / 1000)))
            // Near the reference date (2001), where the sum's rounding shows most.
            texts.append(StorageDate.text(Date(timeIntervalSince1970: Double(Int.random(in: 946_684_800_000..<1_009_843_200_000, using: &generator)) / 1000)))
        }
        var mismatches: [String] = []
        for text in texts {
            let ours = Array(text.utf8).withUnsafeBytes { StorageDate.date($0) }
            let theirs = Date.fromDatabaseValue(text.databaseValue)
            if ours == nil || ours?.timeIntervalSinceReferenceDate.bitPattern != theirs?.timeIntervalSinceReferenceDate.bitPattern {
                mismatches.append("\(text): \(ours.map { "\($0.timeIntervalSinceReferenceDate)" } ?? "nil") but GRDB \(theirs.map { "\($0.timeIntervalSinceReferenceDate)" } ?? "nil")")
            }
        }
        let count = mismatches.count
        #expect(count == 0, "\(mismatches.prefix(5).joined(separator: "; "))")
        for text in ["2023-02-29 00:00:00.000", "2023-11-14 22:13:20", "2023-11-14T22:13:20.000", "1969-12-31 23:59:59.999",
                     "2023-13-01 00:00:00.000", "2023-11-14 24:00:00.000", "abcd-11-14 22:13:20.000"] {
            #expect(Array(text.utf8).withUnsafeBytes { StorageDate.date($0) } == nil, "\(text)")
        }
    }

    @Test func datesOutsideItsRangeAreLeftToGRDB() {
        for seconds in [-1.5, -86_400.0 * 400, 253_402_300_800.0, 300_000_000_000.0] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(StorageDate.text(date) == Self.grdb(date))
        }
    }
}
