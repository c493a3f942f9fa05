import Media
import Testing

@Suite struct ISO6709LocationTests {
    @Test func decimalDegreesWithAltitude() throws {
        let location = try #require(GeoLocation(iso6709: "+59.9139+010.7522+012.000/"))
        #expect(location.latitude == 59.9139)
        #expect(location.longitude == 10.7522)
        #expect(location.altitude == 12)
    }

    @Test func southAndWestAreNegative() throws {
        let location = try #require(GeoLocation(iso6709: "-33.8688-070.6693/"))
        #expect(location.latitude == -33.8688)
        #expect(location.longitude == -70.6693)
        #expect(location.altitude == nil)
    }

    @Test func degreesAndMinutesForms() throws {
        let minutes = try #require(GeoLocation(iso6709: "+5954.834+01045.132/"))
        #expect(abs(minutes.latitude - (59 + 54.834 / 60)) < 1e-9)
        #expect(abs(minutes.longitude - (10 + 45.132 / 60)) < 1e-9)
        let seconds = try #require(GeoLocation(iso6709: "+595450.04+0104507.92CRSWGS_84/"))
        #expect(abs(seconds.latitude - 59.9139) < 1e-4)
        #expect(abs(seconds.longitude - 10.7522) < 1e-4)
    }

    @Test(arguments: ["", "garbage", "+91.0+010.0/", "+45.0/", "+45.0+181.0/"])
    func impossiblePointsAreNil(_ text: String) {
        #expect(GeoLocation(iso6709: text) == nil)
    }
}
