import Foundation
import LightboxProtocol
import Testing
@testable import Picker

@Suite struct SafeFileNameTests {
    @Test(arguments: [
        ("harbour.jpg", "harbour.jpg"),
        ("/", "asset"),
        ("", "asset"),
        ("../../x", "x"),
        ("..\\..\\evil.png", "evil.png"),
        ("/etc/passwd", "passwd"),
        ("folder/", "asset"),
        (".hidden.jpg", "hidden.jpg"),
        ("..", "asset"),
        ("...  .jpg", "jpg"),
        ("a\u{0}b\u{1}c\nd\te.jpg", "abcde.jpg"),
        ("photo\u{202E}gpj.exe", "photogpj.exe"),
        ("line\u{2028}break.jpg", "linebreak.jpg"),
        ("  spaced name.jpg  ", "spaced name.jpg"),
        ("Fjord – sommer 2024.heic", "Fjord – sommer 2024.heic"),
    ])
    func namesAreReducedToASafeBaseName(_ name: String, _ expected: String) {
        #expect(SafeFileName.make(name) == expected)
    }

    @Test func theFallbackIsUsedWhenNothingIsLeftAndIsMadeSafeToo() {
        #expect(SafeFileName.make("/", fallback: "demo-1700000000") == "demo-1700000000")
        #expect(SafeFileName.make("\u{1}\u{2}", fallback: "../x") == "x")
        #expect(SafeFileName.make("/", fallback: "/") == "asset")
    }

    @Test func longNamesAreCutToTheByteLimitKeepingTheExtension() {
        let long = String(repeating: "é", count: 300) + ".jpg"  // 604 bytes
        let safe = SafeFileName.make(long)
        #expect(safe.utf8.count <= SafeFileName.maximumBytes)
        #expect(safe.utf8.count >= SafeFileName.maximumBytes - 1)  // é is two bytes: at most one byte unused
        #expect(safe.hasSuffix(".jpg"))
        #expect(safe.dropLast(4).allSatisfy { $0 == "é" })
        // A "extension" that is really most of the name is cut like the rest.
        let dotted = "a." + String(repeating: "b", count: 400)
        #expect(SafeFileName.make(dotted).utf8.count == SafeFileName.maximumBytes)
        // Emoji are never split.
        let emoji = String(repeating: "👍🏽", count: 100)
        #expect(SafeFileName.make(emoji).utf8.count <= SafeFileName.maximumBytes)
        #expect(SafeFileName.make(emoji).allSatisfy { $0 == "👍🏽" })
    }

    @Test func whatIsStoredAndDeliveredIsSafe() {
        var record = AssetRecord(identifier: "X/L0/001", contentHash: "00", fileName: "../../.x\u{1}.jpg", storedPath: "00/00.jpg",
                                 type: .jpeg, mediaType: .image, subtypes: "", fileSize: 1, creationDate: Date(), importedAt: Date())
        #expect(record.suggestedName == "x")
        #expect(record.summary.fileName == "x.jpg")
        record.fileName = "/"
        #expect(record.suggestedName == "asset")
        record.fileName = ".jpg"
        #expect(record.suggestedName == "jpg")
    }
}
