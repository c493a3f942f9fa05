import Foundation
import LightboxProtocol
import Testing
@testable import Surface

/// The privacy report's sentences in both languages, and the refusal pages in the browser's language.
@Suite struct PrivacyReportTests {
    func summary(picks: Int, received: Int, reads: Int) -> AuditSummary {
        AuditSummary(app: "postcard", since: Date(), picksOpened: picks, itemsReceived: received, reads: reads, recentAssets: [], lastAccess: nil)
    }

    @Test func theSentenceCountsPicksPhotosAndReads() {
        let english = SurfaceStrings.english, chinese = SurfaceStrings(language: .simplifiedChinese)
        #expect(PrivacyReport.sentence(summary(picks: 3, received: 4, reads: 0), name: "Postcard Maker", strings: english)
                == "Postcard Maker opened 3 picks and received 4 photos this week.")
        #expect(PrivacyReport.sentence(summary(picks: 1, received: 1, reads: 1), name: "Postcard Maker", strings: english)
                == "Postcard Maker opened 1 pick and received 1 photo this week. It read photo or video content once.")
        #expect(PrivacyReport.sentence(summary(picks: 0, received: 0, reads: 2), name: "Postcard Maker", strings: english)
                == "Postcard Maker opened no picks this week. It read photo or video content 2 times.")
        #expect(PrivacyReport.sentence(summary(picks: 3, received: 4, reads: 4), name: "Postcard Maker", strings: chinese)
                == "“Postcard Maker”本周发起了 3 次挑选，收到了 4 张照片。它读取了 4 次照片或视频内容。")
    }

    @Test func accessIsSaidInWords() {
        let limited = AppAccess(app: "postcard", name: "Postcard Maker", readWrite: .limited, addOnly: .notDetermined, selectionCount: 12)
        #expect(PrivacyReport.access(limited, strings: .english) == "Limited to 12 photos · Add only: not asked yet")
        #expect(PrivacyReport.access(limited, strings: SurfaceStrings(language: .simplifiedChinese)) == "仅限 12 张照片 · 仅添加：尚未询问")
        let desktop = AppAccess(app: "portal:org.gnome.Loupe", name: "Image Viewer", readWrite: .restricted, addOnly: .restricted,
                                selectionCount: 0, portal: true)
        #expect(PrivacyReport.access(desktop, strings: .english) == "Picks only, through the desktop's file chooser")
    }

    @Test func aRefusalIsWrittenInTheBrowsersLanguageWithItsCommandAsCode() {
        let html = Pages.refusalPage(title: "This login address does not work",
                                     message: "Each login address works once. Make a new one with {command} and open it.",
                                     code: ["command": "lightbox user <login>"], strings: SurfaceStrings(language: .simplifiedChinese))
        #expect(html.contains("<html lang=\"zh-CN\">") && html.contains("<h1>此登录地址无效</h1>"))
        #expect(html.contains("请用 <code>lightbox user &lt;login&gt;</code> 生成一个新地址"))
    }
}
