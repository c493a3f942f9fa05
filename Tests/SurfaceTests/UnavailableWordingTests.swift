import Foundation
import LightboxProtocol
import Synchronization
import Testing
@testable import Surface

/// What a pick's limits leave out is said in the page's language: every sentence the picker's
/// wording may use is in the Chinese table, and a page's English reasons are said again in Chinese.
@Suite struct UnavailableWordingTests {
    static func asset(_ type: MediaType = .image, width: Int? = 640, height: Int? = 480, duration: Double? = nil) -> AssetSummary {
        AssetSummary(identifier: "A/L0/001", fileName: "harbour.jpg", type: .jpeg, mediaType: type, subtypes: [], pixelWidth: width,
                     pixelHeight: height, duration: duration, fileSize: 31_859, creationDate: Date(timeIntervalSince1970: 0))
    }

    @Test func everyReasonHasItsChinese() throws {
        let chinese = SurfaceStrings(language: .simplifiedChinese)
        let asked = Mutex<Set<String>>([])
        let cases: [(SelectionLimits, AssetSummary)] = [
            (SelectionLimits(mediaTypes: [.image]), Self.asset(.video, duration: 1)), (SelectionLimits(mediaTypes: [.video]), Self.asset()),
            (SelectionLimits(maxFileSize: 20_000), Self.asset()), (SelectionLimits(minPixels: 1080), Self.asset()),
            (SelectionLimits(maxPixels: 600), Self.asset()), (SelectionLimits(maxDuration: 60), Self.asset(.video, duration: 130)),
            (SelectionLimits(minPixels: 1080), Self.asset(width: nil)), (SelectionLimits(maxPixels: 600), Self.asset(height: nil)),
            (SelectionLimits(maxDuration: 60), Self.asset(.video, duration: nil)),
        ]
        for (limits, asset) in cases {
            let misfit = try #require(limits.misfit(of: asset, appName: "Postcard Maker"))
            let reason = limits.reason(for: misfit, of: asset, appName: "Postcard Maker") { text, values in
                asked.withLock { _ = $0.insert(text) }
                return chinese(text, values)
            }
            #expect(reason != misfit.reason && !reason.contains("Too") && !reason.contains("unknown"), "\(reason)")
        }
        // And the sheet's line of what the limits let through.
        for limits in [SelectionLimits(maxFileSize: 20_000_000, minPixels: 1080, maxPixels: 4096, maxDuration: 60, mediaTypes: [.video]),
                       SelectionLimits(mediaTypes: [.image])] {
            _ = limits.summary { text, values in
                asked.withLock { _ = $0.insert(text) }
                return chinese(text, values)
            }
        }
        let templates = asked.withLock { $0 }
        #expect(templates.count == 15)
        #expect(templates.subtracting(chinese.table.keys).isEmpty, "not in zh-CN.json: \(templates.subtracting(chinese.table.keys))")
    }

    @Test func theSheetSaysWhatTheLimitsLetThrough() {
        let limits = SelectionLimits(maxFileSize: 20_000_000, minPixels: 1080, maxDuration: 60, mediaTypes: [.image, .video])
        let configuration = PickerConfiguration(limits: limits)
        #expect(PickDescription.limits(appName: "Postcard Maker", configuration)
                == "Postcard Maker takes files up to 20 MB, at least 1080 px on the shorter side, videos up to 1:00")
        #expect(PickDescription.limits(appName: "Postcard Maker", configuration, strings: SurfaceStrings(language: .simplifiedChinese))
                == "“Postcard Maker”只接受：文件不超过 20 MB，短边至少 1080 像素，视频不超过 1:00")
        #expect(PickDescription.limits(appName: "Journal", PickerConfiguration(limits: SelectionLimits(maxDuration: 60, mediaTypes: [.image])))
                == "Journal takes photos only")
        #expect(PickDescription.limits(appName: "Journal", PickerConfiguration()) == nil)
        #expect(PickDescription.limits(appName: "Journal", PickerConfiguration(limits: SelectionLimits())) == nil)
    }

    @Test func aPagesReasonsAreSaidInThePagesLanguage() {
        let limits = SelectionLimits(maxFileSize: 20_000)
        var asset = Self.asset()
        asset.unavailable = limits.misfit(of: asset, appName: "Postcard Maker")
        let page = ListAssetsResponse(assets: [asset, Self.asset(width: 10)], next: "n")
        let pick = OwnerFeed.PickView(pick: "pick-1", app: "postcard", appName: "Postcard Maker", sentence: "", nothingMatches: "",
                                      configuration: PickerConfiguration(limits: limits), createdAt: Date())
        let chinese = UnavailableWording.page(page, of: pick, strings: SurfaceStrings(language: .simplifiedChinese))
        #expect(chinese.assets[0].unavailable?.reason == "对“Postcard Maker”来说太大：31.9 KB，上限 20 KB")
        #expect(chinese.assets[0].unavailable?.limit == .maxFileSize && chinese.assets[1].unavailable == nil && chinese.next == "n")
        #expect(UnavailableWording.page(page, of: pick, strings: .english) == page)
        #expect(UnavailableWording.page(page, of: nil, strings: SurfaceStrings(language: .simplifiedChinese)) == page)
    }
}
