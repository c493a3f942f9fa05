import Foundation
import LightboxProtocol
import Testing

@Suite struct PickerFilterTests {
    let still = AssetTraits(mediaType: .image)
    let animated = AssetTraits(mediaType: .image, subtypes: [.animated])
    let movie = AssetTraits(mediaType: .video)

    @Test func leavesMatchTheirMediaType() {
        #expect(PickerFilter.images.matches(still))
        #expect(!PickerFilter.images.matches(movie))
        #expect(PickerFilter.videos.matches(movie))
        #expect(PickerFilter.animatedImages.matches(animated))
        #expect(!PickerFilter.livePhotos.matches(still))
    }

    @Test func combinatorsCompose() {
        let stillImages = PickerFilter.all([.images, .not(.animatedImages)])
        #expect(stillImages.matches(still))
        #expect(!stillImages.matches(animated))
        #expect(!stillImages.matches(movie))
        #expect(PickerFilter.any([.videos, .animatedImages]).matches(animated))
        #expect(!PickerFilter.any([]).matches(still))
    }

    @Test func textFormParsesAndPrints() throws {
        let filter = try PickerFilter(parsing: "any(images, not(videos))")
        #expect(filter == .any([.images, .not(.videos)]))
        #expect(filter.description == "any(images,not(videos))")
        #expect(try PickerFilter(parsing: filter.description) == filter)
    }

    @Test(arguments: ["", "photos", "any(images", "not(images,videos)", "images)"])
    func badTextIsRejectedWithASentence(_ text: String) {
        #expect(throws: LightboxError.self) { try PickerFilter(parsing: text) }
    }

    /// An app cannot make the picker recurse or build SQL without bound: filters are at most 32
    /// deep and 256 large, on the wire and in the text form alike.
    @Test func filtersAreBoundedInDepthAndSize() throws {
        func nested(_ levels: Int) -> PickerFilter { (1..<levels).reduce(PickerFilter.images) { inner, _ in .not(inner) } }
        let deepest = nested(PickerFilter.maximumDepth)
        #expect(deepest.depth == 32)
        #expect(try WireCoding.decode(PickerFilter.self, from: WireCoding.encode(deepest)) == deepest)
        #expect(try PickerFilter(parsing: deepest.description) == deepest)
        let largest = PickerFilter.any(Array(repeating: .images, count: PickerFilter.maximumSize - 1))
        #expect(try WireCoding.decode(PickerFilter.self, from: WireCoding.encode(largest)) == largest)
        #expect(try PickerFilter(parsing: largest.description) == largest)

        for tooLarge in [nested(33), nested(400), .any(Array(repeating: .images, count: PickerFilter.maximumSize)),
                         .all(Array(repeating: .any(Array(repeating: .videos, count: 20)), count: 20))] {
            #expect(throws: DecodingError.self) { try WireCoding.decode(PickerFilter.self, from: WireCoding.encode(tooLarge)) }
            #expect(throws: LightboxError.self) { try PickerFilter(parsing: tooLarge.description) }
        }
        // The fuzzer's finding: thousands of levels of text overflowed the parser's stack.
        let deepText = String(repeating: "any(", count: 5000) + "images" + String(repeating: ")", count: 5000)
        #expect(throws: LightboxError.self) { try PickerFilter(parsing: deepText) }
    }

    /// What a desktop app's file chooser admits: originals of those types, and HEIC or WebP stills
    /// for an app that takes JPEG (they are delivered as their compatible JPEG).
    @Test func typesAdmitWhatCanBeDeliveredAsThem() throws {
        func asset(_ type: UTType, animated: Bool = false) -> AssetTraits {
            AssetTraits(mediaType: type.isMovie ? .video : .image, subtypes: animated ? [.animated] : [], type: type)
        }
        let jpeg = PickerFilter.types([.jpeg])
        #expect(jpeg.matches(asset(.jpeg)) && jpeg.matches(asset(.heic)) && jpeg.matches(asset(.webP)))
        #expect(!jpeg.matches(asset(.png)) && !jpeg.matches(asset(.gif)) && !jpeg.matches(asset(.webP, animated: true)))
        #expect(!jpeg.matches(still))  // no type known: not admitted
        #expect(PickerFilter.types([.heif]).matches(asset(.heic)))
        #expect(PickerFilter.types([.image]).matches(asset(.gif)))
        #expect(!PickerFilter.types([.mpeg4Movie]).matches(asset(.quickTimeMovie)))

        let filter = PickerFilter.any([.videos, .types([.png, .jpeg])])
        #expect(filter.description == "any(videos,types(public.png,public.jpeg))")
        #expect(try PickerFilter(parsing: filter.description) == filter)
        let json = String(decoding: try WireCoding.encode(filter), as: UTF8.self)
        #expect(json == #"{"any":["videos",{"types":["public.png","public.jpeg"]}]}"#)
        #expect(try WireCoding.decode(PickerFilter.self, from: Data(json.utf8)) == filter)
        for bad in [#"{"types":[]}"#, #"{"types":["a b"]}"#, #"{"types":[""]}"#,
                    #"{"types":[\#(Array(repeating: #""public.jpeg""#, count: 65).joined(separator: ","))]}"#] {
            #expect(throws: DecodingError.self) { try WireCoding.decode(PickerFilter.self, from: Data(bad.utf8)) }
        }
        for bad in ["types()", "types(public.jpeg", "types(a/b)", "types(public.jpeg,)"] {
            #expect(throws: LightboxError.self) { try PickerFilter(parsing: bad) }
        }
    }

    @Test func wireFormIsStringsAndObjects() throws {
        let filter = PickerFilter.all([.images, .not(.livePhotos)])
        let json = String(decoding: try WireCoding.encode(filter), as: UTF8.self)
        #expect(json == #"{"all":["images",{"not":"livePhotos"}]}"#)
        #expect(try WireCoding.decode(PickerFilter.self, from: Data(json.utf8)) == filter)
        #expect(throws: DecodingError.self) { try WireCoding.decode(PickerFilter.self, from: Data(#""selfies""#.utf8)) }
    }
}

@Suite struct UTTypeTests {
    @Test func conformanceFollowsTheTree() {
        #expect(UTType.jpeg.conforms(to: .image))
        #expect(UTType.jpeg.conforms(to: .data))
        #expect(UTType.heic.conforms(to: .heif))
        #expect(UTType.heic.conforms(to: .image))
        #expect(UTType.quickTimeMovie.conforms(to: .movie))
        #expect(UTType.mpeg4Movie.conforms(to: .audiovisualContent))
        #expect(!UTType.jpeg.conforms(to: .movie))
        #expect(!UTType.image.conforms(to: .jpeg))
        #expect(UTType("com.example.unknown").conforms(to: UTType("com.example.unknown")))
        #expect(!UTType("com.example.unknown").conforms(to: .data))
    }

    @Test func knownTypesHaveFileExtensions() {
        #expect(UTType.jpeg.preferredFilenameExtension == "jpg")
        #expect(UTType.webP.preferredFilenameExtension == "webp")
        #expect(UTType.image.preferredFilenameExtension == nil)
    }
}
