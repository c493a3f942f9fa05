import Foundation
import Testing
import LightboxProtocol

/// Replays every input the wire fuzz target once crashed on (Tests/Fixtures/fuzz-regressions/wire)
/// through the entry the fuzzer calls, so a fixed crash stays fixed. A regression crashes the test run.
@Suite struct WireFuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/fuzz-regressions/wire").standardizedFileURL

    @Test("Wire regression inputs decode without crashing")
    func replay() throws {
        let files = ((try? FileManager.default.contentsOfDirectory(at: Self.folder, includingPropertiesForKeys: nil)) ?? [])
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        for file in files {
            WireFuzzEntry.decode(try Data(contentsOf: file))
        }
        print("fuzz regressions wire: \(files.count) replayed")
    }

    @Test("Every golden fixture decodes through the fuzz entry as every body type")
    func goldenFixturesThroughEveryDecoder() throws {
        let golden = Self.folder.appendingPathComponent("../../golden").standardizedFileURL
        let fixtures = try FileManager.default.contentsOfDirectory(at: golden, includingPropertiesForKeys: nil)
        #expect(!fixtures.isEmpty)
        for fixture in fixtures {
            let header = try Data(contentsOf: fixture)
            for choice in 0...WireFuzzEntry.bodyDecoders.count {
                WireFuzzEntry.decode(Data([UInt8(choice)]) + header)
            }
        }
    }
}
