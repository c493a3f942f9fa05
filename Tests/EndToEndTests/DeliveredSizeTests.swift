import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Testing

/// Sizes an app is told match what it gets: full-size image requests are upright, describe reports
/// the file load sends, and the new ImageIO keys arrive over the wire.
@Suite(.serialized) struct DeliveredSizeTests {

    /// portrait.jpg is stored 300 × 400 with Orientation 6: its full size is 400 × 300 upright.
    @Test func aFullSizeRequestIsTheWholeImageUpright() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("viewer")
        try await harness.settings().setAccess(SetAccessRequest(app: "viewer", readWrite: .full))
        let portrait = try #require(try await harness.owner().assets().first { $0.fileName == "portrait.jpg" })
        guard case .image(let image) = try await ImageManager(picker: app).requestImage(
            ImageRequest(asset: portrait.identifier, deliveryMode: .highQualityFormat)) else {
            Issue.record("no image")
            return
        }
        #expect((image.pixelWidth, image.pixelHeight) == (400, 300))
    }

    @Test func describeReportsTheSizeOfTheDeliveredFile() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("private")
        let original = try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("harbour.jpg"))

        let bare = try await harness.pickProvider(named: "harbour.jpg", as: app, strip: .all)
        let described = try await bare.describe()
        let delivered = try await bare.loadDataRepresentation()
        print("harbour.jpg: original \(original.count) bytes, stripped \(delivered.count), described \(described.fileSize)")
        #expect(described.fileSize == Int64(delivered.count))
        #expect(described.fileSize != Int64(original.count))

        let plain = try await harness.pickProvider(named: "harbour.jpg", as: app)
        #expect(try await plain.describe().fileSize == Int64(original.count))
        let properties = try #require(try await plain.describe().imageProperties)
        #expect(properties["ColorModel"] == .string("RGB"))
        #expect(properties["Depth"] == .number(8))
        #expect(properties["{Exif}"]?["DateTimeDigitized"] == .string("2024:06:01 12:30:45"))
    }

    /// Import decodes each image (making the owner's 256-px thumbnail) and refuses the ones no
    /// decoder can show: a GIF 0 pixels wide, a WebP whose header is valid but bitstream broken.
    @Test func importRefusesImagesThatDoNotDecode() async throws {
        let harness = try await ServiceHarness.start(importFolders: [])
        defer { harness.stop() }
        let owner = try await harness.owner()
        let folder = harness.root.appendingPathComponent("undecodable")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["zero-width.gif", "broken-bitstream.webp"] {
            try FileManager.default.copyItem(at: ServiceHarness.repository.appendingPathComponent("Samples/malformed/\(name)"),
                                             to: folder.appendingPathComponent(name))
        }
        try FileManager.default.copyItem(at: ServiceHarness.samples.appendingPathComponent("harbour.jpg"), to: folder.appendingPathComponent("harbour.jpg"))
        let started = Date()
        let summary = try await owner.importLibrary(at: folder.path)
        print("imported 3 files (1 good) in \(Date().timeIntervalSince(started)) s; refused: \(summary.failed.map { "\($0.file): \($0.message)" })")
        #expect(summary.imported.count == 1)
        #expect(Set(summary.failed.map(\.file)) == ["zero-width.gif", "broken-bitstream.webp"])
        #expect(summary.failed.allSatisfy { $0.code == .badMedia && !$0.message.isEmpty })
        #expect(try await owner.assets().map(\.fileName) == ["harbour.jpg"])
    }
}
