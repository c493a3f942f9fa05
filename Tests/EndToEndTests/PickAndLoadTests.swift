import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Synchronization
import Testing

@Suite(.serialized) struct PickAndLoadTests {
    /// A pick nobody answers ends with `timeout` and leaves the owner's pending list; the app's
    /// next pick is a pick like any other.
    @Test func anUnansweredPickTimesOut() async throws {
        let harness = try await ServiceHarness.start(pickerOptions: ["--pick-timeout", "1"])
        defer { #expect(harness.stop() == (0, 0)) }
        let app = try await harness.registerApp("waiting")
        let owner = try await harness.owner()
        for _ in 0..<2 {
            #expect(await errorCode { try await PhotoPicker(connection: app).pick(PickerConfiguration(), timeout: .seconds(30)) } == .timeout)
            #expect(try await owner.pendingPicks().isEmpty)
        }
    }

    @Test func pickNeedsNoAuthorizationAndLoadsTheOriginalBytes() async throws {
        let harness = try await ServiceHarness.start()
        defer { #expect(harness.stop() == (0, 0)) }
        let app = try await harness.registerApp("demo")
        let items = try await harness.pick(as: app, PickerConfiguration(photoLibrary: true, location: .precise)) { assets in
            assets.filter { $0.fileName == "harbour.jpg" }.map(\.identifier)
        }
        try #require(items.count == 1)
        let provider = items[0].itemProvider
        #expect(items[0].assetIdentifier?.hasSuffix("/L0/001") == true)
        #expect(provider.registeredTypeIdentifiers == [.jpeg])
        #expect(provider.hasItemConformingTo(.image))
        #expect(provider.hasItemConformingTo(.data))
        #expect(!provider.hasItemConformingTo(.movie))
        #expect(provider.suggestedName == "harbour")

        let original = ServiceHarness.samples.appendingPathComponent("harbour.jpg")
        let steps = Mutex<[LoadProgress]>([])
        let data = try await provider.loadDataRepresentation { step in steps.withLock { $0.append(step) } }
        #expect(data == (try Data(contentsOf: original)))
        let seen = steps.withLock { $0 }
        #expect(!seen.isEmpty)
        #expect(seen.last?.completed == seen.last?.total)
        #expect(seen.map(\.completed) == seen.map(\.completed).sorted())

        let destination = harness.root.appendingPathComponent("mine.jpg")
        let fileSteps = Mutex(0)
        let completion = try await provider.loadFileRepresentation(for: .image, to: destination) { _ in fileSteps.withLock { $0 += 1 } }
        #expect(try sha256(destination) == sha256(original))
        #expect(completion.sha256 == (try sha256(original)))
        #expect(completion.type == .jpeg)
        #expect(fileSteps.withLock { $0 } > 0)
        // The file is the caller's: it is still there afterwards, and no partial file is left beside it.
        try await Task.sleep(for: .milliseconds(100))
        #expect(FileManager.default.fileExists(atPath: destination.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: harness.root.path).filter { $0.contains("partial") }.isEmpty)

        let description = try await provider.describe()
        #expect(description.properties.pixelWidth == 640)
        #expect(description.properties.pixelHeight == 480)
        #expect(description.fileSize == Int64(try Data(contentsOf: original).count))
    }

    /// A streamed original's digest is the one taken at import: a copy damaged on disk since then
    /// is caught by the client's check instead of being handed over as the photo.
    @Test func anOriginalDamagedAfterImportFailsTheClientsDigestCheck() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("demo")
        let items = try await harness.pick(as: app) { assets in assets.filter { $0.fileName == "harbour.jpg" }.map(\.identifier) }
        var provider = try #require(items.first).itemProvider
        provider.delivery = .stream
        let original = try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("harbour.jpg"))
        #expect(try await provider.loadDataRepresentation() == original)

        let originals = harness.directory.dataDirectory.appendingPathComponent("picker/originals")
        let stored = try #require(FileManager.default.subpaths(atPath: originals.path)?
            .map { originals.appendingPathComponent($0) }
            .first { (try? Data(contentsOf: $0)) == original })
        var damaged = original
        damaged[damaged.count / 2] ^= 0xFF
        try damaged.write(to: stored)
        do {
            _ = try await provider.loadDataRepresentation()
            Issue.record("a damaged original must not be delivered as if it were the photo")
        } catch let error as LightboxError {
            #expect(error.message.contains("digest"), "\(error)")
        }
    }

    @Test func withoutLibraryBindingResultsCarryNoIdentifier() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("demo")
        let items = try await harness.pick(as: app) { Array($0.prefix(1).map(\.identifier)) }
        #expect(items.count == 1)
        #expect(items[0].assetIdentifier == nil)
    }

    @Test func limitAndFilterAreHonoured() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("demo")
        let owner = try await harness.owner()
        let configuration = PickerConfiguration(selectionLimit: 2, filter: .images, selection: .ordered, photoLibrary: true)
        async let picked = PhotoPicker(connection: app).pick(configuration, timeout: .seconds(30))
        let pick = try await harness.pendingPick(owner)
        #expect(pick.app == "demo")
        #expect(pick.appName == "App demo")
        #expect(pick.configuration == configuration)

        let offered = try await owner.assets(for: pick.pick)
        let all = try await owner.assets()
        #expect(offered.count == 6)
        #expect(offered.allSatisfy { $0.mediaType == .image })
        let video = try #require(all.first { $0.mediaType == .video })
        // Beyond the limit, or outside the filter: refused, and the pick stays open.
        #expect(await errorCode { try await owner.choose(offered.prefix(3).map(\.identifier), for: pick.pick) } == .badRequest)
        #expect(await errorCode { try await owner.choose([video.identifier], for: pick.pick) } == .badRequest)
        #expect(await errorCode { try await owner.choose(["00000000-0000-0000-0000-000000000000/L0/001"], for: pick.pick) } == .notFound)
        #expect(await errorCode { try await owner.choose([], for: pick.pick) } == .badRequest)

        let chosen = [offered[3].identifier, offered[0].identifier]
        #expect(try await owner.choose(chosen, for: pick.pick) == 2)
        let items = try await picked
        // Ordered selection keeps the owner's order.
        #expect(items.map(\.assetIdentifier) == chosen)
        // Answered picks are gone.
        #expect(await errorCode { try await owner.choose(chosen, for: pick.pick) } == .notFound)
    }

    @Test func noLimitAndCombinedFilters() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("demo")
        let configuration = PickerConfiguration(selectionLimit: 0, filter: .any([.videos, .animatedImages]), photoLibrary: true)
        let items = try await harness.pick(as: app, configuration) { assets in assets.map(\.identifier) }
        let names = Set(items.compactMap { $0.itemProvider.suggestedName })
        #expect(names == ["clip", "bounce", "spinner"])
    }

    @Test func cancelGivesEmptyResults() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("demo")
        let owner = try await harness.owner()
        async let picked = PhotoPicker(connection: app).pick(timeout: .seconds(30))
        let pick = try await harness.pendingPick(owner)
        try await owner.cancel(pick.pick)
        #expect(try await picked.isEmpty)
        #expect(try await owner.pendingPicks().isEmpty)
    }

    @Test func cliPickUserAutoAndLoadWorkTogether() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        #expect(try await harness.cli(["app", "register", "cli-app", "--name", "CLI App"]).status == 0)
        let policy = harness.root.appendingPathComponent("policy.json")
        try Data(#"{"action":"choose","strategy":"named","files":["portrait.jpg","harbour.jpg"]}"#.utf8).write(to: policy)
        async let auto = harness.cli(["user", "auto", "--policy", policy.path, "--max-picks", "1"])
        let pick = try await harness.cli(["pick", "--app", "cli-app", "--limit", "2", "--ordered", "--photo-library"])
        #expect(pick.status == 0, "\(pick.errors)")
        #expect(try await auto.status == 0)
        let lines = pick.output.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        try #require(lines.count == 2)
        #expect(lines.allSatisfy { $0[1] == "public.jpeg" && $0[2].hasSuffix("/L0/001") })

        let out = harness.root.appendingPathComponent("portrait-copy.jpg")
        let load = try await harness.cli(["load", lines[0][0], "--app", "cli-app", "--out", out.path])
        #expect(load.status == 0, "\(load.errors)")
        #expect(try sha256(out) == sha256(ServiceHarness.samples.appendingPathComponent("portrait.jpg")))
        #expect(load.errors.contains("100%"))
    }
}
