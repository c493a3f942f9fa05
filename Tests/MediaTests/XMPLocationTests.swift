@testable import Media
import Testing

/// Positions in XMP packets (a HEIC whose only location is there must still lose it on delivery).
@Suite struct XMPLocationTests {
    @Test func coordinatesInBothFormsAndBothHemispheres() {
        #expect(abs(XMPLocation.coordinate("59,54.834N")! - 59.9139) < 1e-9)
        #expect(abs(XMPLocation.coordinate("10,45,7.92W")! + 10.7522) < 1e-9)
        #expect(abs(XMPLocation.coordinate(" 33,51.5S ")! + 33.858333) < 1e-6)
        for broken in ["59.9139", "59,54.834", "59,54.834X", "a,b N", "59,-5N", "1,2,3,4N", ""] {
            #expect(XMPLocation.coordinate(broken) == nil, "\(broken)")
        }
    }

    @Test func positionsAsElementsOrAttributesAndNothingWithoutBoth() {
        let element = "<rdf:Description><exif:GPSLatitude>59,54.834N</exif:GPSLatitude><exif:GPSLongitude>10,45.132E</exif:GPSLongitude></rdf:Description>"
        #expect(XMPLocation.position(in: element).map { abs($0.latitude - 59.9139) < 1e-9 && abs($0.longitude - 10.7522) < 1e-9 } == true)
        let attributes = "<rdf:Description exif:GPSLatitude='48,51.6N' exif:GPSLongitude=\"2,21E\"/>"
        #expect(XMPLocation.position(in: attributes).map { abs($0.latitude - 48.86) < 1e-9 && abs($0.longitude - 2.35) < 1e-9 } == true)
        #expect(XMPLocation.position(in: "<exif:GPSLatitude>59,54.834N</exif:GPSLatitude>") == nil)
        #expect(XMPLocation.position(in: "<exif:GPSLatitude>99,0N</exif:GPSLatitude><exif:GPSLongitude>1,0E</exif:GPSLongitude>") == nil)
    }
}
