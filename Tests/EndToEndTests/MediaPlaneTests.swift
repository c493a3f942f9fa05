import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Media
import Synchronization
import Testing

/// Metadata, representations, location privacy, the image manager and the cloud tier, end to end.
@Suite(.serialized) struct MediaPlaneTests {


    func metadata(of data: Data, _ harness: ServiceHarness) throws -> MediaMetadata {
        try harness.metadata(of: data)
    }

    @Test func describeAndLibraryPropertiesLookLikeImageIO() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("viewer")
        let provider = try await harness.pickProvider(named: "harbour.jpg", as: app)
        let properties = try #require(try await provider.describe().imageProperties)
        #expect(properties["PixelWidth"] == .number(640))
        #expect(properties["{TIFF}"]?["Make"] == .string("Lightbox"))
        #expect(properties["{Exif}"]?["DateTimeOriginal"] == .string("2024:06:01 12:30:45"))
        #expect(properties["{GPS}"]?["LatitudeRef"] == .string("N"))
        if case .number(let latitude)? = properties["{GPS}"]?["Latitude"] { #expect(abs(latitude - 59.9139) < 1e-4) } else {
            Issue.record("no GPS latitude")
        }

        try await harness.settings().setAccess(SetAccessRequest(app: "viewer", readWrite: .full))
        let clip = try await harness.asset(named: "clip.mp4")
        let response = try await app.request(.imageProperties, AssetRequest(asset: clip.identifier), as: ImagePropertiesResponse.self)
        #expect(response.properties["{Video}"]?["Codec"] == .string("h264"))
        #expect(response.properties["PixelHeight"] == .number(120))
    }

    @Test func representationsFollowTheModeAndTranscodesAreCached() async throws {
        let harness = try await ServiceHarness.start(importFolders: [ServiceHarness.samples, ServiceHarness.extraSamples])
        defer { harness.stop() }
        let app = try await harness.registerApp("formats")

        let automatic = try await harness.pickProvider(named: "meadow.webp", as: app)
        #expect(automatic.registeredTypeIdentifiers == [.webP, .jpeg])
        let original = try await automatic.loadDataRepresentation()
        #expect(original == (try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("meadow.webp"))))
        let jpeg = try await automatic.loadDataRepresentation(for: .jpeg)
        let decoded = try metadata(of: jpeg, harness)
        #expect(decoded.type == .jpeg)
        #expect(decoded.pixelWidth == 400)
        #expect(decoded.pixelHeight == 300)
        let derived = harness.directory.dataDirectory.appendingPathComponent("picker/derived")
        let files = try FileManager.default.subpathsOfDirectory(atPath: derived.path).filter { $0.hasSuffix(".jpg") }
        #expect(files.count == 1)
        let made = try FileManager.default.attributesOfItem(atPath: derived.appendingPathComponent(files[0]).path)[.modificationDate] as? Date
        #expect(try await automatic.loadDataRepresentation(for: .jpeg) == jpeg)
        let again = try FileManager.default.attributesOfItem(atPath: derived.appendingPathComponent(files[0]).path)[.modificationDate] as? Date
        #expect(made == again, "the transcode was made again instead of reused")

        let compatible = try await harness.pickProvider(named: "harbour.heic", as: app, PickerConfiguration(preferredAssetRepresentationMode: .compatible))
        #expect(compatible.registeredTypeIdentifiers == [.jpeg])
        #expect(try metadata(of: try await compatible.loadDataRepresentation(), harness).type == .jpeg)
        let current = try await harness.pickProvider(named: "meadow.webp", as: app, PickerConfiguration(preferredAssetRepresentationMode: .current))
        #expect(current.registeredTypeIdentifiers == [.webP])
        #expect(await errorCode { try await current.loadDataRepresentation(for: .jpeg) } == .typeNotRegistered)
        // Animations keep their own format: a JPEG would lose the frames.
        let animated = try await harness.pickProvider(named: "spinner.webp", as: app)
        #expect(animated.registeredTypeIdentifiers == [.webP])
    }

    @Test func locationAndAllMetadataCanBeStrippedFromDeliveredImages() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("private")
        let original = try metadata(of: try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("harbour.jpg")), harness)
        #expect(original.location != nil)

        // The app's configuration asks for no location.
        let withoutLocation = try await harness.pickProvider(named: "harbour.jpg", as: app, PickerConfiguration(stripMetadata: .location))
        let stripped = try metadata(of: try await withoutLocation.loadDataRepresentation(), harness)
        #expect(stripped.location == nil)
        #expect(stripped.cameraMake == "Lightbox")
        #expect(stripped.pixelWidth == 640)
        #expect(try await withoutLocation.describe().imageProperties?["{GPS}"] == nil)

        // The owner removes everything when choosing.
        let bare = try await harness.pickProvider(named: "harbour.jpg", as: app, strip: .all)
        let file = harness.root.appendingPathComponent("bare.jpg")
        try await bare.loadFileRepresentation(to: file)
        let none = try MetadataReader.read(fileAt: file)
        #expect(none.location == nil)
        #expect(none.cameraMake == nil)
        #expect(none.dateTimeOriginal == nil)
        #expect(!none.hasEXIF)
        #expect(none.pixelWidth == 640)
        #expect(try await bare.describe().imageProperties?["{Exif}"] == nil)

        // Without stripping, the location is there: the owner's choice is what removes it.
        let plain = try await harness.pickProvider(named: "harbour.jpg", as: app)
        #expect(try metadata(of: try await plain.loadDataRepresentation(), harness).location != nil)
    }

    @Test func imageManagerDeliveryModesSizesAndVersions() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("gallery")
        try await harness.settings().setAccess(SetAccessRequest(app: "gallery", readWrite: .full))
        let manager = ImageManager(picker: app)
        let harbour = try await harness.asset(named: "harbour.jpg")

        var results: [RenderedImage] = []
        for try await outcome in manager.requestImage(ImageRequest(asset: harbour.identifier, targetWidth: 300, targetHeight: 300)) {
            guard case .image(let image) = outcome else { Issue.record("expected images, got \(outcome)"); continue }
            results.append(image)
        }
        #expect(results.map(\.isDegraded) == [true, false])
        #expect(max(results[0].pixelWidth ?? 999, results[0].pixelHeight ?? 999) <= 128)
        #expect(results[1].pixelWidth == 300)
        #expect(results[1].pixelHeight == 225)
        #expect(try metadata(of: results[1].data, harness).pixelWidth == 300)

        let high = ImageRequest(asset: harbour.identifier, targetWidth: 200, targetHeight: 200, contentMode: .fill, deliveryMode: .highQualityFormat)
        var highResults: [ImageRequestOutcome] = []
        for try await outcome in manager.requestImage(high) { highResults.append(outcome) }
        #expect(highResults.count == 1)
        guard case .image(let filled)? = highResults.first else { throw LightboxError(.internal, "no image") }
        #expect(filled.pixelWidth == 200 && filled.pixelHeight == 200 && !filled.isDegraded)

        let fast = try await manager.requestImage(ImageRequest(asset: harbour.identifier, targetWidth: 1000, targetHeight: 1000, deliveryMode: .fastFormat))
        guard case .image(let quick) = fast else { throw LightboxError(.internal, "no image") }
        #expect(max(quick.pixelWidth ?? 999, quick.pixelHeight ?? 999) <= 256)

        for version in [ImageVersion.current, .original] {
            let full = try await manager.requestImage(ImageRequest(asset: harbour.identifier, deliveryMode: .highQualityFormat, version: version))
            guard case .image(let image) = full else { throw LightboxError(.internal, "no image") }
            #expect(image.pixelWidth == 640 && image.pixelHeight == 480)
        }
        // A movie is asked for with video.request; and nothing outside the app's access is reachable.
        let clip = try await harness.asset(named: "clip.mp4")
        #expect(await errorCode { try await manager.requestImage(ImageRequest(asset: clip.identifier)) } == .badRequest)
        try await harness.settings().setAccess(SetAccessRequest(app: "gallery", readWrite: .limited, selection: [clip.identifier]))
        #expect(await errorCode { try await manager.requestImage(ImageRequest(asset: harbour.identifier)) } == .notFound)
    }

    @Test func cloudOnlyOriginalsNeedNetworkAccessAndCanBeCancelled() async throws {
        // 10 KB/s: a 32 KB photo takes about three seconds to come down, long enough to watch and
        // cancel (at 30 KB/s a loaded machine ran the cancelling task after the download had ended).
        let harness = try await ServiceHarness.start(pickerOptions: ["--cloud-bandwidth", "10000"])
        defer { harness.stop() }
        let app = try await harness.registerApp("cloudy")
        try await harness.settings().setAccess(SetAccessRequest(app: "cloudy", readWrite: .full))
        let owner = try await harness.owner()
        let manager = ImageManager(picker: app)
        let harbour = try await harness.asset(named: "harbour.jpg")
        try await owner.offload(harbour.identifier)
        #expect(try await PhotoLibrary(auth: try await harness.directory.connectToAuth(as: try harness.directory.appKeyPair("cloudy")), picker: app)
            .fetchAssets(withLocalIdentifiers: [harbour.identifier]).first?.isInCloud == true)

        // No network: no data and no error, and the typed outcome says why.
        #expect(try await manager.requestImage(ImageRequest(asset: harbour.identifier, isNetworkAccessAllowed: false)) == .inCloud)

        // Cancelled during the download: the result says so and the original stays in the cloud.
        let requestID = Mutex<String?>(nil)
        let steps = Mutex(0)
        let cancelling = ImageRequest(asset: harbour.identifier, deliveryMode: .highQualityFormat, isNetworkAccessAllowed: true)
        var outcomes: [ImageRequestOutcome] = []
        for try await outcome in manager.requestImage(cancelling, progress: { _ in
            if steps.withLock({ $0 += 1; return $0 }) == 2, let id = requestID.withLock({ $0 }) {
                Task { try? await manager.cancelImageRequest(id) }
            }
        }, onStart: { id in requestID.withLock { $0 = id } }) {
            outcomes.append(outcome)
        }
        #expect(outcomes == [.cancelled])
        #expect(try await owner.assets().first { $0.identifier == harbour.identifier }?.isInCloud == true)

        // With network access the original downloads, with progress, and the image arrives.
        let (final, seen) = try await manager.downloadingImage(of: harbour.identifier)
        guard case .image(let image)? = final else { throw LightboxError(.internal, "no image after the download") }
        #expect(image.pixelWidth == 100)
        #expect(seen.count >= 5)
        #expect(seen.last?.completed == seen.last?.total)
        #expect(try await owner.assets().first { $0.identifier == harbour.identifier }?.isInCloud == false)

        // An item provider fetches from the cloud by itself.
        let portrait = try await harness.asset(named: "portrait.jpg")
        try await owner.offload(portrait.identifier)
        let provider = try await harness.pickProvider(named: "portrait.jpg", as: app)
        #expect(try await provider.loadDataRepresentation() == (try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("portrait.jpg"))))
    }

    @Test func moviesArriveAsFilesTheAppOwns() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("player")
        try await harness.settings().setAccess(SetAccessRequest(app: "player", readWrite: .full))
        let manager = ImageManager(picker: app)
        let clip = try await harness.asset(named: "clip.mp4")
        let original = ServiceHarness.samples.appendingPathComponent("clip.mp4")
        // Fast and medium are transcodes (VideoDeliveryTests); high and automatic are the original.
        for mode in [VideoDeliveryMode.highQualityFormat, .automatic] {
            let file = harness.root.appendingPathComponent("clip-\(mode).mp4")
            #expect(try await manager.requestVideo(VideoRequest(asset: clip.identifier, deliveryMode: mode), to: file) == .file(file, deliveredQuality: "original"))
            #expect(try sha256(file) == sha256(original))
            #expect(FileManager.default.isReadableFile(atPath: file.path))
        }
        try await harness.owner().offload(clip.identifier)
        let missing = harness.root.appendingPathComponent("not-here.mp4")
        #expect(try await manager.requestVideo(VideoRequest(asset: clip.identifier), to: missing) == .inCloud)
        #expect(!FileManager.default.fileExists(atPath: missing.path))
        let fetched = harness.root.appendingPathComponent("fetched.mp4")
        #expect(try await manager.requestVideo(VideoRequest(asset: clip.identifier, isNetworkAccessAllowed: true), to: fetched) == .file(fetched, deliveredQuality: "original"))
        #expect(try sha256(fetched) == sha256(original))
    }
}
