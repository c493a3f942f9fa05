import Testing
@testable import Surface

/// The page's language from the browser's Accept-Language, and the byte ranges a video element asks for.
@Suite struct LocalizationTests {
    @Test func theLanguageFollowsAcceptLanguage() {
        #expect(SurfaceLanguage(acceptLanguage: nil) == .english)
        #expect(SurfaceLanguage(acceptLanguage: "zh-CN,zh;q=0.9,en;q=0.8") == .simplifiedChinese)
        #expect(SurfaceLanguage(acceptLanguage: "zh-Hans") == .simplifiedChinese)
        #expect(SurfaceLanguage(acceptLanguage: "fr-FR, zh;q=0.5") == .simplifiedChinese)
        #expect(SurfaceLanguage(acceptLanguage: "en-GB,zh-CN;q=0.9") == .english)
        #expect(SurfaceLanguage(acceptLanguage: "en;q=0.3, zh-CN;q=0.8") == .simplifiedChinese)
        // Traditional characters are not what the table is written in; zh;q=0 is a refusal.
        #expect(SurfaceLanguage(acceptLanguage: "zh-TW") == .english)
        #expect(SurfaceLanguage(acceptLanguage: "zh-Hant-HK, zh;q=0") == .english)
    }

    @Test func theTableFillsInValuesAndEscapesForAScriptElement() {
        let chinese = SurfaceStrings(language: .simplifiedChinese)
        #expect(chinese("{count} of {limit}", ["count": "1", "limit": "2"]) == "1/2")
        #expect(SurfaceStrings.english("Add ({count})", ["count": "3"]) == "Add (3)")
        #expect(!chinese.table.isEmpty && !chinese.json.contains("</"))
    }

    @Test func aRangeHeaderResolvesAgainstTheFileSize() {
        #expect(ByteRange.resolve(nil, total: 100) == .whole)
        #expect(ByteRange.resolve("bytes=0-", total: 100) == .range(ByteRange(start: 0, end: 99)))
        #expect(ByteRange.resolve("bytes=10-19", total: 100) == .range(ByteRange(start: 10, end: 19)))
        #expect(ByteRange.resolve("bytes=90-500", total: 100) == .range(ByteRange(start: 90, end: 99)))
        #expect(ByteRange.resolve("bytes=-30", total: 100) == .range(ByteRange(start: 70, end: 99)))
        #expect(ByteRange.resolve("bytes=100-", total: 100) == .unsatisfiable)
        #expect(ByteRange.resolve("bytes=20-10", total: 100) == .unsatisfiable)
        #expect(ByteRange.resolve("bytes=0-1,5-6", total: 100) == .unsatisfiable)
        #expect(ByteRange.resolve("bytes=0-", total: 0) == .unsatisfiable)
    }
}
