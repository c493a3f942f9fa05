import Foundation
import LightboxProtocol
import Testing
@testable import Picker

/// The pick sheet's search as typed: dates in English, ISO and Chinese forms, read in the owner's
/// time zone; kinds; and what is left for places, cameras and file names.
@Suite struct LibrarySearchTests {
    static let utc = TimeZone(identifier: "UTC")!

    static func interval(_ start: String, _ end: String) -> DateInterval {
        let parse = ISO8601DateFormatter()
        return DateInterval(start: parse.date(from: start)!, end: parse.date(from: end)!)
    }

    @Test(arguments: [
        ("2024", "2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z"),
        ("March 2024", "2024-03-01T00:00:00Z", "2024-04-01T00:00:00Z"),
        ("mar 2024", "2024-03-01T00:00:00Z", "2024-04-01T00:00:00Z"),
        ("2024 December", "2024-12-01T00:00:00Z", "2025-01-01T00:00:00Z"),
        ("3 March 2024", "2024-03-03T00:00:00Z", "2024-03-04T00:00:00Z"),
        ("March 3, 2024", "2024-03-03T00:00:00Z", "2024-03-04T00:00:00Z"),
        ("2024-03", "2024-03-01T00:00:00Z", "2024-04-01T00:00:00Z"),
        ("2024-02-29", "2024-02-29T00:00:00Z", "2024-03-01T00:00:00Z"),
        ("2024年", "2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z"),
        ("2024年3月", "2024-03-01T00:00:00Z", "2024-04-01T00:00:00Z"),
        ("2024 年 3 月 5 日", "2024-03-05T00:00:00Z", "2024-03-06T00:00:00Z"),
    ])
    func aDateIsAYearAMonthOrADay(_ typed: String, _ start: String, _ end: String) {
        let search = LibrarySearch(parsing: typed, timeZone: Self.utc)
        #expect(search.dates == Self.interval(start, end), "\(typed)")
        #expect(search.words.isEmpty && search.kinds.isEmpty, "\(typed)")
    }

    @Test func datesAreTheOwnersDays() {
        // March 2024 in Shanghai begins eight hours before it does in UTC; in Lisbon, at midnight UTC.
        let shanghai = LibrarySearch(parsing: "2024年3月", timeZone: TimeZone(identifier: "Asia/Shanghai")!)
        #expect(shanghai.dates == Self.interval("2024-02-29T16:00:00Z", "2024-03-31T16:00:00Z"))
        let lisbon = LibrarySearch(parsing: "March 2024", timeZone: TimeZone(identifier: "Europe/Lisbon")!)
        #expect(lisbon.dates == Self.interval("2024-03-01T00:00:00Z", "2024-03-31T23:00:00Z"))
    }

    @Test func kindsPlacesAndWordsAreTheRest() {
        let lisbon = LibrarySearch(parsing: "Lisbon 2024", timeZone: Self.utc)
        #expect(lisbon.words == "lisbon" && lisbon.dates == Self.interval("2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z"))
        #expect(LibrarySearch(parsing: "screenshots", timeZone: Self.utc) == LibrarySearch(kinds: [.screenshots]))
        #expect(LibrarySearch(parsing: "Live Photos", timeZone: Self.utc) == LibrarySearch(kinds: [.livePhotos]))
        #expect(LibrarySearch(parsing: "panorama New York", timeZone: Self.utc) == LibrarySearch(kinds: [.panoramas], words: "new york"))
        let chinese = LibrarySearch(parsing: "2024年的截图", timeZone: Self.utc)
        #expect(chinese.kinds == [.screenshots] && chinese.words.isEmpty && chinese.dates != nil)
        #expect(LibrarySearch(parsing: "实况照片", timeZone: Self.utc) == LibrarySearch(kinds: [.livePhotos]))
    }

    @Test func aMonthOrADayWithoutAYearIsAWord() {
        #expect(LibrarySearch(parsing: "may", timeZone: Self.utc) == LibrarySearch(words: "may"))
        #expect(LibrarySearch(parsing: "3 march", timeZone: Self.utc) == LibrarySearch(words: "3 march"))
        #expect(LibrarySearch(parsing: "IMG_0042", timeZone: Self.utc) == LibrarySearch(words: "img_0042"))
        // Not a day of that month: the whole date is words.
        #expect(LibrarySearch(parsing: "2023-02-30", timeZone: Self.utc).dates == nil)
        #expect(LibrarySearch(parsing: "", timeZone: Self.utc).isEmpty)
        #expect(LibrarySearch(parsing: "  ,  ", timeZone: Self.utc).isEmpty)
    }
}
