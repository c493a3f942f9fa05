import LightboxProtocol
import Testing
@testable import Portal

/// Which OpenFile requests become picks, and what the pick shows and delivers.
@Suite struct PhotoRequestTests {
    static func filter(_ name: String, _ patterns: FileFilter.Pattern...) -> FileFilter {
        FileFilter(name: name, patterns: patterns)
    }

    static func decide(multiple: Bool = false, directory: Bool = false, filters: [FileFilter], current: FileFilter? = nil,
                       choices: Bool = false) -> PhotoRequest {
        PhotoRequest(OpenFileOptions(multiple: multiple, directory: directory, filters: filters, currentFilter: current, hasChoices: choices))
    }

    @Test func imageFiltersBecomeAPick() {
        let images = Self.filter("Images", .mimeType("image/*"))
        guard case .pick(let limit, let accepted) = Self.decide(multiple: true, filters: [images]) else {
            Issue.record("image/* was not a pick")
            return
        }
        #expect(limit == 0)
        #expect(accepted.pickerFilter == .images)
        guard case .pick(let single, _) = Self.decide(filters: [images]) else { return }
        #expect(single == 1)
    }

    @Test func videosAndBothAreShownAsSuch() {
        guard case .pick(_, let videos) = Self.decide(filters: [Self.filter("Videos", .mimeType("video/*"))]),
              case .pick(_, let both) = Self.decide(filters: [Self.filter("Media", .mimeType("image/*"), .glob("*.mp4"), .glob("*.png"))]) else {
            Issue.record("media filters were not picks")
            return
        }
        #expect(videos.pickerFilter == .videos)
        #expect(both.pickerFilter == .any([.images, .types([.mpeg4Movie])]))
    }

    @Test(arguments: ["*.jpg", "*.JPEG", "*.[jJ][pP][gG]", "*.[jJ][pP][eE][gG]"])
    func jpegGlobsAcceptJPEG(_ glob: String) {
        guard case .pick(_, let accepted) = Self.decide(filters: [Self.filter("JPEG", .glob(glob))]) else {
            Issue.record("\(glob) was not a pick")
            return
        }
        #expect(accepted.types == [.jpeg])
        #expect(!accepted.anyImage)
        // The sheet shows only what can be delivered as JPEG.
        #expect(accepted.pickerFilter == .types([.jpeg]))
    }

    @Test func everythingElseIsForwarded() {
        let cases: [(String, PhotoRequest)] = [
            ("text", Self.decide(filters: [Self.filter("Text", .mimeType("text/plain"))])),
            ("images or any file", Self.decide(filters: [Self.filter("Images", .mimeType("image/*")), Self.filter("All", .glob("*"))])),
            ("a mixed filter", Self.decide(filters: [Self.filter("Mixed", .mimeType("image/png"), .glob("*.pdf"))])),
            ("a folder", Self.decide(directory: true, filters: [Self.filter("Images", .mimeType("image/*"))])),
            ("no filters", Self.decide(filters: [])),
            ("choices", Self.decide(filters: [Self.filter("Images", .mimeType("image/*"))], choices: true)),
            ("formats Lightbox does not keep", Self.decide(filters: [Self.filter("TIFF", .mimeType("image/tiff"), .glob("*.tif"))])),
            ("a glob with a path", Self.decide(filters: [Self.filter("Odd", .glob("photos/*.jpg"))])),
            ("an unknown pattern type", Self.decide(filters: [Self.filter("Odd", .unknown(7, "image/*"))])),
        ]
        for (what, decision) in cases {
            guard case .forward = decision else {
                Issue.record("\(what) became a pick")
                continue
            }
        }
    }

    /// GTK's image filter lists every format gdk-pixbuf reads; those Lightbox does not keep do not
    /// stop a pick of those it does.
    @Test func formatsLightboxDoesNotKeepDoNotStopAPick() {
        let pixbuf = Self.filter("Images", .mimeType("image/png"), .mimeType("image/jpeg"), .mimeType("image/tiff"), .mimeType("image/x-icon"),
                                 .glob("*.bmp"), .glob("*.webp"))
        guard case .pick(_, let accepted) = Self.decide(filters: [pixbuf]) else {
            Issue.record("GTK's image filter was not a pick")
            return
        }
        #expect(accepted.types == [.png, .jpeg, .webP])
        #expect(accepted.pickerFilter == .types([.webP, .jpeg, .png]))
    }

    @Test func theCurrentFilterCountsWhenNoListIsGiven() {
        guard case .pick = Self.decide(filters: [], current: Self.filter("PNG", .mimeType("image/png"))) else {
            Issue.record("a current filter alone was not a pick")
            return
        }
    }

    @Test func theDeliveredRepresentationIsOneTheAppAccepts() {
        var jpegOnly = AcceptedTypes()
        jpegOnly.types = [.jpeg]
        #expect(jpegOnly.representation(among: [.heic, .jpeg]) == .jpeg)
        #expect(jpegOnly.representation(among: [.png]) == nil)
        var anyImage = AcceptedTypes()
        anyImage.anyImage = true
        #expect(anyImage.representation(among: [.heic, .jpeg]) == .heic)
        // A Live Photo registers its bundle type first, then its still, then its movie.
        #expect(anyImage.representation(among: [.livePhoto, .heic, .jpeg, .quickTimeMovie]) == .heic)
        var moviesOnly = AcceptedTypes()
        moviesOnly.anyVideo = true
        #expect(moviesOnly.representation(among: [.livePhoto, .heic, .quickTimeMovie]) == .quickTimeMovie)
    }
}
