import Foundation
import Testing
@testable import Media

/// Every sample, cut short at many points and with bytes flipped: the readers must answer each
/// with metadata or a MediaError that says something, never crash, hang or throw anything else.
@Suite struct DamagedFileTests {
    static let samples = ["library/bounce.gif", "library/clip.mp4", "library/harbour.jpg", "library/meadow.webp",
                          "library/portrait.jpg", "library/spinner.webp", "library/sunset.png",
                          "extra/harbour.heic", "extra/located.mov"]

    /// Bit-flipped copies per sample.
    static let flipRounds = 24

    @Test(arguments: samples)
    func damagedCopiesGiveMetadataOrAMediaError(_ sample: String) throws {
        let original = try SampleFiles.bytes(SampleFiles.folder.appendingPathComponent(sample))
        let name = (sample as NSString).lastPathComponent
        var variants: [(String, Data)] = []
        let cuts = Set([1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 100, 200, 400, 1000] + (1...15).map { original.count * $0 / 16 })
        for cut in cuts.sorted() where cut < original.count {
            variants.append(("cut at \(cut)", original.prefix(cut)))
        }
        // Seeded, so a failure names a variant that can be made again.
        var generator = SplitMix64(seed: UInt64(sample.utf8.count) &* 7919)
        for round in 0..<Self.flipRounds {
            var flipped = original
            // Flips in the first 2 KB, where the headers the readers parse live, and anywhere.
            for _ in 0..<4 {
                let range = round % 2 == 0 ? min(2048, flipped.count) : flipped.count
                let index = Int.random(in: 16..<range, using: &generator)
                flipped[index] ^= UInt8.random(in: 1...255, using: &generator)
            }
            variants.append(("flipped \(round)", flipped))
        }
        for (label, bytes) in variants {
            try SampleFiles.withTemporaryFile(bytes, named: name) { url in
                switch BoundedRead.metadata(of: url, within: 10) {
                case .read: break
                case .failed(let error as MediaError):
                    #expect(error.message.contains(name), "\(sample) \(label): \(error.message)")
                case .failed(let error):
                    Issue.record("\(sample) \(label): threw \(error), not a MediaError")
                case .timedOut:
                    Issue.record("\(sample) \(label): did not finish in 10 s")
                }
            }
        }
    }
}
