import Foundation
import LightboxProtocol
import Testing

/// A pick's selection limits: which values are refused and why, which assets fit, and the reason
/// the owner reads for those that do not.
@Suite struct SelectionLimitsTests {
    static func asset(_ type: MediaType = .image, width: Int? = 640, height: Int? = 480, bytes: Int64 = 31_859,
                      duration: Double? = nil) -> AssetSummary {
        AssetSummary(identifier: "A/L0/001", fileName: "harbour.jpg", type: type == .image ? .jpeg : UTType("public.mpeg-4"),
                     mediaType: type, subtypes: [], pixelWidth: width, pixelHeight: height, duration: duration, fileSize: bytes,
                     creationDate: Date(timeIntervalSince1970: 0))
    }

    func refusal(_ limits: SelectionLimits) -> String? {
        do {
            try limits.validate()
            return nil
        } catch {
            #expect(error.code == .badRequest)
            return error.message
        }
    }

    @Test func badValuesAreRefusedWithASentenceNamingTheMember() {
        #expect(refusal(SelectionLimits()) == nil)
        #expect(refusal(SelectionLimits(maxFileSize: 1, minPixels: 1, maxPixels: 100_000, maxDuration: 0.1, mediaTypes: [.video])) == nil)
        #expect(refusal(SelectionLimits(maxFileSize: 0))?.contains("limits.maxFileSize") == true)
        #expect(refusal(SelectionLimits(maxFileSize: -5))?.contains("limits.maxFileSize") == true)
        #expect(refusal(SelectionLimits(minPixels: 0))?.contains("limits.minPixels") == true)
        #expect(refusal(SelectionLimits(maxPixels: 12_000_000))?.contains("limits.maxPixels") == true)
        #expect(refusal(SelectionLimits(minPixels: 2000, maxPixels: 1000))?.contains("nothing could fit") == true)
        #expect(refusal(SelectionLimits(maxDuration: 0))?.contains("limits.maxDuration") == true)
        #expect(refusal(SelectionLimits(maxDuration: -1))?.contains("limits.maxDuration") == true)
        #expect(refusal(SelectionLimits(maxDuration: .infinity))?.contains("limits.maxDuration") == true)
        #expect(refusal(SelectionLimits(mediaTypes: []))?.contains("limits.mediaTypes") == true)
    }

    @Test func eachLimitSaysWhyInWords() {
        let app = "Postcard Maker"
        func reason(_ limits: SelectionLimits, _ asset: AssetSummary) -> String? { limits.misfit(of: asset, appName: app)?.reason }
        #expect(reason(SelectionLimits(maxFileSize: 20_000_000), Self.asset(bytes: 48_000_000)) == "Too large for Postcard Maker: 48 MB of 20 MB")
        #expect(reason(SelectionLimits(maxFileSize: 20_000), Self.asset()) == "Too large for Postcard Maker: 31.9 KB of 20 KB")
        // Values that would read the same are said to the byte.
        #expect(reason(SelectionLimits(maxFileSize: 20_000_000), Self.asset(bytes: 20_000_001))
                == "Too large for Postcard Maker: 20000001 bytes of 20000000 bytes")
        #expect(reason(SelectionLimits(minPixels: 1080), Self.asset()) == "Too small: 640 × 480, at least 1080 px")
        #expect(reason(SelectionLimits(maxPixels: 600), Self.asset()) == "Too large: 640 × 480, at most 600 px")
        #expect(reason(SelectionLimits(maxDuration: 60), Self.asset(.video, duration: 130)) == "Too long: 2:10 of 1:00")
        #expect(reason(SelectionLimits(maxDuration: 60), Self.asset(.video, duration: 60.04)) == "Too long: 1:00.1 of 1:00.0")
        #expect(reason(SelectionLimits(maxDuration: 60), Self.asset(.video, duration: 3725)) == "Too long: 1:02:05 of 1:00")
        #expect(reason(SelectionLimits(mediaTypes: [.image]), Self.asset(.video, duration: 2)) == "Postcard Maker takes photos only")
        #expect(reason(SelectionLimits(mediaTypes: [.video]), Self.asset()) == "Postcard Maker takes videos only")
        // What the library does not know cannot be shown to fit.
        #expect(reason(SelectionLimits(minPixels: 100), Self.asset(width: nil, height: nil)) == "Size unknown: Postcard Maker needs at least 100 px")
        #expect(reason(SelectionLimits(maxDuration: 60), Self.asset(.video, duration: nil)) == "Length unknown: Postcard Maker takes at most 1:00")
    }

    @Test func whatFitsHasNoMisfitAndSidesIgnoreOrientation() {
        let limits = SelectionLimits(maxFileSize: 31_859, minPixels: 480, maxPixels: 640, maxDuration: 2, mediaTypes: [.image, .video])
        #expect(limits.misfit(of: Self.asset(), appName: "A") == nil)
        #expect(limits.misfit(of: Self.asset(width: 480, height: 640), appName: "A") == nil)
        #expect(limits.misfit(of: Self.asset(.video, duration: 2), appName: "A") == nil)
        // A still is not held to the duration, whatever it says.
        #expect(SelectionLimits(maxDuration: 1).misfit(of: Self.asset(duration: 5), appName: "A") == nil)
        // The first limit missed, in a fixed order: kind, size, pixels, duration.
        let everything = SelectionLimits(maxFileSize: 1, minPixels: 5000, mediaTypes: [.video])
        #expect(everything.misfit(of: Self.asset(), appName: "A")?.limit == .mediaTypes)
        let misfit = SelectionLimits(maxFileSize: 1, minPixels: 5000).misfit(of: Self.asset(), appName: "A")
        #expect(misfit == SelectionMisfit(limit: .maxFileSize, actual: 31_859, allowed: 1, reason: "Too large for A: 31.9 KB of 1 byte"))
    }

    @Test func theReasonTravelsWithTheAssetAndLimitsWithThePick() throws {
        var asset = Self.asset()
        asset.unavailable = SelectionLimits(minPixels: 1080).misfit(of: asset, appName: "A")
        let json = String(decoding: try WireCoding.encode(asset), as: UTF8.self)
        #expect(json.contains(#""unavailable":{"#) && json.contains(#""limit":"minPixels""#) && json.contains(#""actual":480"#))
        #expect(!String(decoding: try WireCoding.encode(Self.asset()), as: UTF8.self).contains("unavailable"))
        let body = try RequestEnvelope<PickRequest>.decodeBody(from: Data(
            #"{"v":1,"id":"a","op":"picker.pick","body":{"configuration":{"limits":{"maxFileSize":20000000,"mediaTypes":["image"]}}}}"#.utf8))
        #expect(body.configuration.limits == SelectionLimits(maxFileSize: 20_000_000, mediaTypes: [.image]))
        #expect(throws: (any Error).self) {
            try RequestEnvelope<PickRequest>.decodeBody(from: Data(
                #"{"v":1,"id":"a","op":"picker.pick","body":{"configuration":{"limits":{"mediaTypes":["audio"]}}}}"#.utf8))
        }
    }
}
