import Foundation
import Testing
@testable import Picker

@Suite struct OriginalOrientationsTests {
    func asset(hash: String, properties: String) -> AssetRecord {
        AssetRecord(identifier: "\(hash)/L0/001", contentHash: hash, fileName: "a.jpg", storedPath: "\(hash).jpg", type: .jpeg,
                    mediaType: .image, subtypes: "", fileSize: 1, creationDate: Date(), importedAt: Date(), properties: properties)
    }

    @Test func anOrientationIsReadOnceByContentAndTheMemoryStaysBounded() {
        let orientations = OriginalOrientations(capacity: 2)
        #expect(orientations.orientation(of: asset(hash: "aa", properties: #"{"Orientation":6,"PixelWidth":4}"#)) == 6)
        #expect(orientations.orientation(of: asset(hash: "bb", properties: "{}")) == nil)
        // Remembered by content hash: the same original is not read again (its properties are the same bytes' properties).
        #expect(orientations.orientation(of: asset(hash: "aa", properties: "{}")) == 6)
        #expect(orientations.orientation(of: asset(hash: "bb", properties: #"{"Orientation":3}"#)) == nil)
        #expect(orientations.count == 2)
        // Full: emptied before the next original is remembered.
        #expect(orientations.orientation(of: asset(hash: "cc", properties: #"{"Orientation":8}"#)) == 8)
        #expect(orientations.count == 1)
        #expect(orientations.orientation(of: asset(hash: "aa", properties: #"{"Orientation":5}"#)) == 5)
    }
}
