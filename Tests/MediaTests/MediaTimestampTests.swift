import Foundation
@testable import Media
import Testing

@Suite struct MediaTimestampTests {
    static func utc(_ text: String) -> Date? { ISO8601DateFormatter().date(from: text) }

    @Test func exifDatesAreUTCUnlessAnOffsetIsGiven() {
        #expect(MediaTimestamp.exif("2024:06:01 12:30:45") == Self.utc("2024-06-01T12:30:45Z"))
        #expect(MediaTimestamp.exif("2024:06:01 12:30:45", offset: "+02:00") == Self.utc("2024-06-01T10:30:45Z"))
        #expect(MediaTimestamp.exif("2024:06:01 12:30:45", offset: "-05:00") == Self.utc("2024-06-01T17:30:45Z"))
    }

    @Test(arguments: ["0000:00:00 00:00:00", "    :  :     :  :  ", "", "2024:02:30 10:00:00", "2024:13:01 10:00:00", "garbage"])
    func unsetOrImpossibleEXIFDatesAreNil(_ text: String) {
        #expect(MediaTimestamp.exif(text) == nil)
    }

    @Test func movieTimestampsTakeFFmpegAndAppleForms() {
        #expect(MediaTimestamp.iso8601("2024-05-01T10:00:00.000000Z") == Self.utc("2024-05-01T10:00:00Z"))
        #expect(MediaTimestamp.iso8601("2019-07-24T11:25:40+0300") == Self.utc("2019-07-24T08:25:40Z"))
        #expect(MediaTimestamp.iso8601("2019-07-24T11:25:40+03:00") == Self.utc("2019-07-24T08:25:40Z"))
        #expect(MediaTimestamp.iso8601("2005-10-28 17:36:40") == Self.utc("2005-10-28T17:36:40Z"))
        #expect(MediaTimestamp.iso8601("2019-07-24T11:25:40 nonsense") == nil)
    }
}
