import Foundation
import Testing
@testable import Picker

/// What a watched folder passes over: hidden names and the temporaries of downloads and editors,
/// at any depth below the watched folder (but not above it).
@Suite struct WatchedNameTests {
    @Test func hiddenAndTemporaryNamesArePassedOver() {
        for name in [".DS_Store", ".hidden.jpg", "IMG_1.jpg.part", "photo.JPG.PART", "x.tmp", "photo.jpg~", "photo.jpg.crdownload"] {
            #expect(WatchedName.isIgnored(name), "\(name)")
        }
        for name in ["IMG_1.jpg", "party.jpg", "tmp.png", "holiday~2024.heic"] {
            #expect(!WatchedName.isIgnored(name), "\(name)")
        }
    }

    @Test func aHiddenFolderHidesWhatIsInItButOnlyBelowTheRoot() {
        #expect(WatchedName.isIgnored(path: "/home/me/.Pictures/a/.thumbnails/x.jpg", below: "/home/me/.Pictures"))
        #expect(!WatchedName.isIgnored(path: "/home/me/.Pictures/a/x.jpg", below: "/home/me/.Pictures"))
        #expect(WatchedName.isIgnored(path: "/p/.cache/x.jpg", below: "/p"))
    }
}
