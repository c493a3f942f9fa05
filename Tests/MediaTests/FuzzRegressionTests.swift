import Foundation
import Testing
@testable import Media

/// Replays every input a media fuzz target once crashed on (Tests/Fixtures/fuzz-regressions/<target>)
/// through the entry the fuzzer calls, so a fixed crash stays fixed. A regression crashes the test run.
@Suite struct FuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/fuzz-regressions").standardizedFileURL

    static func inputs(of target: String) -> [URL] {
        let files = (try? FileManager.default.contentsOfDirectory(
            at: folder.appendingPathComponent(target), includingPropertiesForKeys: nil)) ?? []
        return files.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test("Every regression folder belongs to a fuzz target")
    func foldersNameTargets() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
            .filter { !$0.hasSuffix(".md") }
        let known = Set(MediaFuzzEntry.Target.allCases.map(\.rawValue) + ["wire", "zmtp"])
        #expect(names.filter { !known.contains($0) } == [], "a folder the tests would never replay")
    }

    @Test("Regression inputs read without crashing", arguments: MediaFuzzEntry.Target.allCases)
    func replay(_ target: MediaFuzzEntry.Target) throws {
        let inputs = Self.inputs(of: target.rawValue)
        for input in inputs {
            MediaFuzzEntry.run(target, on: try Data(contentsOf: input))
        }
        print("fuzz regressions \(target.rawValue): \(inputs.count) replayed")
    }

    @Test("The fuzz entry reaches each reader with the samples")
    func samplesReadThroughTheEntry() throws {
        // The entry swallows errors by design, so show that good files get through it to the reader.
        let cases: [(MediaFuzzEntry.Target, String)] = [
            (.jpeg, "library/harbour.jpg"), (.png, "library/sunset.png"), (.webp, "library/meadow.webp"),
            (.gif, "library/bounce.gif"), (.heif, "extra/harbour.heic"), (.movie, "library/clip.mp4"),
            (.motion, "motion/google-container.MP.jpg"), (.motion, "motion/samsung.jpg"),
        ]
        let jpeg = try Data(contentsOf: SampleFiles.library("harbour.jpg"))
        #expect(MediaFuzzEntry.run(.exif, on: jpeg.dropFirst(24)), "the EXIF block of harbour.jpg")
        for (target, name) in cases {
            let bytes = try Data(contentsOf: SampleFiles.folder.appendingPathComponent(name))
            #expect(MediaFuzzEntry.run(target, on: bytes), "\(name) through \(target)")
            #expect(!MediaFuzzEntry.run(target, on: bytes.prefix(16)), "the first 16 bytes of \(name) through \(target)")
            if [.jpeg, .png, .webp, .gif].contains(target) {
                #expect(MediaFuzzEntry.run(.strip, on: Data([1]) + bytes), "stripping \(name)")
            }
        }
    }
}
