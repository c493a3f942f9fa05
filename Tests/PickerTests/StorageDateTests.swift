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

    @Test func datesOutsideItsRangeAreLeftToGRDB() {
        for seconds in [-1.5, -86_400.0 * 400, 253_402_300_800.0, 300_000_000_000.0] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(StorageDate.text(date) == Self.grdb(date))
        }
    }
}
