import Foundation
import LightboxProtocol
import Media
import Testing
@testable import Picker

/// Import pairs a still with its movie into one Live Photo asset.
@Suite struct LivePhotoImportTests {
    @Test func pairsByContentIdentifierAndByStemAndTime() async throws {
        let fixture = try PickerFixture()
        defer { fixture.remove() }
        let summary = try await fixture.importer.importFolder(PickerFixture.samples.appendingPathComponent("live")) { _ in }
        #expect(summary.imported.count == 2)
        let assets = try await fixture.catalog.allAssets()
        #expect(Set(assets.map(\.fileName)) == ["identified.jpg", "IMG_0002.JPG"], "the movies are not assets of their own")
        for asset in assets {
            #expect(asset.subtypeSet.contains(.livePhoto), "\(asset.fileName)")
            #expect(asset.pairedType == .quickTimeMovie)
            let movie = try #require(asset.pairedMovie)
            #expect(FileManager.default.fileExists(atPath: fixture.catalog.originalURL(of: movie).path))
        }
        let byName = Dictionary(uniqueKeysWithValues: assets.map { ($0.fileName, $0) })
        let identified = try Data(contentsOf: PickerFixture.samples.appendingPathComponent("live/movie-of-identified.mov"))
        let stored = try Data(contentsOf: fixture.catalog.originalURL(of: try #require(byName["identified.jpg"]?.pairedMovie)))
        #expect(stored == identified)
        #expect(Representations.registeredTypes(for: try #require(byName["IMG_0002.JPG"]), mode: .automatic, removing: .none)
                == [.livePhoto, .jpeg, .quickTimeMovie])
    }

    @Test func aStemMatchNeedsCaptureTimesWithinASecond() throws {
        var still = LivePhotoPairing.Candidate(url: URL(fileURLWithPath: "/a/IMG_1.JPG"), metadata: .init(type: .jpeg))
        var movie = LivePhotoPairing.Candidate(url: URL(fileURLWithPath: "/a/IMG_1.mov"), metadata: .init(type: .quickTimeMovie))
        still.metadata.creationDate = Date(timeIntervalSince1970: 1000)
        movie.metadata.creationDate = Date(timeIntervalSince1970: 1000.8)
        #expect(LivePhotoPairing.pairs([still, movie]) == [still.url: movie.url])
        movie.metadata.creationDate = Date(timeIntervalSince1970: 1002)
        #expect(LivePhotoPairing.pairs([still, movie]).isEmpty)
        movie.metadata.creationDate = still.metadata.creationDate
        movie.url = URL(fileURLWithPath: "/b/IMG_1.mov")
        #expect(LivePhotoPairing.pairs([still, movie]).isEmpty, "another folder")
    }
}

/// Import makes a Motion Photo (Samples/motion) one Live Photo asset with its MP4 as the paired movie.
@Suite struct MotionPhotoImportTests {
    @Test func motionPhotosBecomeLivePhotosAndALyingOneStaysAStill() async throws {
        let fixture = try PickerFixture()
        defer { fixture.remove() }
        let summary = try await fixture.importer.importFolder(PickerFixture.samples.appendingPathComponent("motion")) { _ in }
        #expect(summary.imported.count == 5)
        let movie = try Data(contentsOf: PickerFixture.samples.appendingPathComponent("library/clip.mp4"))
        for asset in try await fixture.catalog.allAssets() {
            guard asset.fileName != "lying-length.jpg" else {
                #expect(!asset.subtypeSet.contains(.livePhoto))
                #expect(asset.pairedMovie == nil)
                continue
            }
            #expect(asset.subtypeSet.contains(.livePhoto), "\(asset.fileName)")
            #expect(asset.pairedType == .mpeg4Movie)
            #expect(try Data(contentsOf: fixture.catalog.originalURL(of: try #require(asset.pairedMovie))) == movie)
            guard case .object(let motion)? = asset.imageProperties["{MotionPhoto}"] else {
                Issue.record("\(asset.fileName) has no {MotionPhoto} properties")
                continue
            }
            #expect(motion["MovieLength"] == .number(Double(movie.count)))
            if asset.fileName != "samsung.jpg" { #expect(motion["PresentationTimestampMicroseconds"] == .number(500_000)) }
        }
    }
}
