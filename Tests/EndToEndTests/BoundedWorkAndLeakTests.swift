import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Media
import Synchronization
import Testing

/// Issue 8, items 2 and 5 end to end: image requests bounded by the original, the derived-file
/// quota, creations that never reveal or hand over the owner's assets, safe file names, and
/// image-request ids that belong to the app that made them.
@Suite(.serialized) struct BoundedWorkAndLeakTests {

    func finalImage(_ manager: ImageManager, _ request: ImageRequest) async throws -> RenderedImage {
        guard case .image(let image) = try await manager.requestImage(request) else {
            throw LightboxError(.internal, "no image for \(request)")
        }
        return image
    }

    func derivedBytes(_ harness: ServiceHarness) throws -> Int64 {
        let folder = harness.directory.dataDirectory.appendingPathComponent("picker/derived")
        guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey]) else { return 0 }
        var total: Int64 = 0
        for case let url as URL in files {
            guard let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey]), values.isRegularFile == true else { continue }
            total += Int64(values.fileSize ?? 0)
        }
        return total
    }

    /// The issue's attack: fill at 16384 × 16384 of a 300 × 400 JPEG (portrait.jpg, stored
    /// 300 × 400 with orientation 6, so 400 × 300 upright).
    @Test func anOversizedImageRequestGetsNoMoreThanTheOriginalInBoundedMemory() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("greedy")
        try await harness.settings().setAccess(SetAccessRequest(app: "greedy", readWrite: .full))
        let manager = ImageManager(picker: app)
        let portrait = try await harness.asset(named: "portrait.jpg")
        let before = harness.peakMemory(of: harness.picker)

        let filled = try await finalImage(manager, ImageRequest(asset: portrait.identifier, targetWidth: 16384, targetHeight: 16384,
                                                                contentMode: .fill, deliveryMode: .highQualityFormat))
        #expect((filled.pixelWidth, filled.pixelHeight) == (300, 300))
        let fitted = try await finalImage(manager, ImageRequest(asset: portrait.identifier, targetWidth: 16384, targetHeight: 16384,
                                                                contentMode: .fit, deliveryMode: .highQualityFormat))
        #expect((fitted.pixelWidth, fitted.pixelHeight) == (400, 300))
        // The opportunistic path too: its degraded and final images stay within the original.
        var sizes: [(Int?, Int?)] = []
        for try await outcome in manager.requestImage(ImageRequest(asset: portrait.identifier, targetWidth: 20000, targetHeight: 9000, contentMode: .fill)) {
            if case .image(let image) = outcome { sizes.append((image.pixelWidth, image.pixelHeight)) }
        }
        #expect(sizes.count == 2)
        #expect(sizes.allSatisfy { ($0.0 ?? .max) <= 400 && ($0.1 ?? .max) <= 300 })
        // Many distinct oversized boxes of one shape are one rendering, not one each.
        for side in stride(from: 5000, through: 16000, by: 1000) {
            let image = try await finalImage(manager, ImageRequest(asset: portrait.identifier, targetWidth: side, targetHeight: side,
                                                                   contentMode: .fill, deliveryMode: .highQualityFormat))
            #expect((image.pixelWidth, image.pixelHeight) == (300, 300))
        }
        let thumbnails = try FileManager.default.subpathsOfDirectory(
            atPath: harness.directory.dataDirectory.appendingPathComponent("picker/derived").path).filter { $0.contains("thumb-300x300-fill") }
        #expect(thumbnails.count == 1)

        let after = harness.peakMemory(of: harness.picker)
        print("picker peak memory (VmHWM): \(before >> 20) MiB before, \(after >> 20) MiB after the oversized requests")
        // The issue measured 3.8 GiB for the first request alone.
        #expect(after - before < 512 << 20)
    }

    @Test func theDerivedFilesStayWithinTheirQuota() async throws {
        let quota: Int64 = 1 << 20
        let harness = try await ServiceHarness.start(pickerOptions: ["--derived-quota-mb", "1"])
        defer { harness.stop() }
        let app = try await harness.registerApp("sizes")
        try await harness.settings().setAccess(SetAccessRequest(app: "sizes", readWrite: .full))
        let manager = ImageManager(picker: app)
        let harbour = try await harness.asset(named: "harbour.jpg")  // 640 × 480
        var delivered: Int64 = 0
        var largestOnDisk: Int64 = 0
        for width in stride(from: 330, through: 635, by: 5) {
            let image = try await finalImage(manager, ImageRequest(asset: harbour.identifier, targetWidth: width, targetHeight: 480,
                                                                   deliveryMode: .highQualityFormat))
            #expect(image.pixelWidth == width)
            delivered += Int64(image.data.count)
            largestOnDisk = max(largestOnDisk, try derivedBytes(harness))
        }
        print("derived cache: \(delivered) bytes of thumbnails delivered, at most \(largestOnDisk) on disk (quota \(quota))")
        #expect(delivered > quota, "the sizes asked for did not fill the quota, so this test shows nothing")
        #expect(largestOnDisk <= quota)
        #expect(largestOnDisk > 0)
        // The most recent rendering is still cached: asking again makes nothing new.
        let folder = harness.directory.dataDirectory.appendingPathComponent("picker/derived")
        let last = try #require(try FileManager.default.subpathsOfDirectory(atPath: folder.path).first { $0.contains("thumb-635x") })
        let made = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(last).path)[.modificationDate] as? Date
        _ = try await finalImage(manager, ImageRequest(asset: harbour.identifier, targetWidth: 635, targetHeight: 480, deliveryMode: .highQualityFormat))
        let again = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(last).path)[.modificationDate] as? Date
        #expect(made == again)
    }

    /// A limited app uploads the exact bytes of the owner's photo outside its selection.
    @Test func uploadingAnExistingPhotoMakesANewAssetAndRevealsNothing() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        try await harness.registerApp("prober")
        let settings = try await harness.settings()
        let harbour = try await harness.asset(named: "harbour.jpg")
        let sunset = try await harness.asset(named: "sunset.png")
        try await settings.setAccess(SetAccessRequest(app: "prober", readWrite: .limited, selection: [sunset.identifier]))
        let library = try await harness.library(for: "prober")
        let bytes = try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("harbour.jpg"))

        let created = try await library.createAsset(bytes, fileName: "mine.jpg")
        #expect(created != harbour.identifier)
        #expect(created.hasSuffix("/L0/001"))
        let again = try await library.createAsset(bytes, fileName: "mine again.jpg")
        #expect(again != created && again != harbour.identifier)

        // The selection gained the app's own assets, not the owner's.
        #expect(try await settings.apps().first { $0.app == "prober" }?.selectionCount == 3)
        let all = try await library.fetchAssets(AssetQuery())
        #expect(Set(all.assets.map(\.identifier)) == [sunset.identifier, created, again])
        #expect(!all.assets.contains { $0.fileName == "harbour.jpg" })
        #expect(try await library.fetchAssets(withLocalIdentifiers: [harbour.identifier]).isEmpty)
        let mine = try #require(try await library.fetchAssets(withLocalIdentifiers: [created]).first)
        #expect(mine.fileName == "mine.jpg")
        // The app's asset works (the same pixels), and the owner's stays out of reach.
        let manager = ImageManager(picker: try await harness.registerApp("prober"))
        #expect(try await finalImage(manager, ImageRequest(asset: created, deliveryMode: .highQualityFormat)).pixelWidth == 640)
        #expect(await errorCode { try await manager.requestImage(ImageRequest(asset: harbour.identifier)) } == .notFound)

        // The owner's photo is unchanged, and the owner's re-import still finds it, not a copy.
        let owner = try await harness.owner()
        #expect(try await owner.assets().count == 9)
        #expect(try await owner.assets().first { $0.identifier == harbour.identifier }?.fileName == "harbour.jpg")
        #expect(try await harness.restartPicker() == 0)
        #expect(try await harness.owner().assets().count == 9)
    }

    @Test func hostileFileNamesReachPickingAppsAsSafeNames() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        try await harness.registerApp("namer")
        try await harness.settings().setAccess(SetAccessRequest(app: "namer", readWrite: .full))
        let library = try await harness.library(for: "namer")
        let bytes = try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("sunset.png"))
        let names = ["/", "../../x.png", "a\u{1}b\nc\u{202E}gnp.png", ".hidden.png", String(repeating: "é", count: 300) + ".png", "..\\..\\win.png"]
        var created: [String: String] = [:]
        for name in names { created[try await library.createAsset(bytes, fileName: name)] = name }

        let viewer = try await harness.registerApp("viewer")
        let identifiers = Set(created.keys)
        let items = try await harness.pick(as: viewer, PickerConfiguration(selectionLimit: 0)) { assets in
            assets.map(\.identifier).filter(identifiers.contains)
        }
        #expect(items.count == names.count)
        var suggested: [String] = []
        for item in items {
            let name = try #require(item.itemProvider.suggestedName)
            #expect(try await item.itemProvider.describe().suggestedName == name)
            suggested.append(name)
        }
        print("suggested names: \(suggested.map { $0.count > 40 ? "\($0.prefix(8))…(\($0.utf8.count) bytes)" : $0 })")
        for name in suggested {
            #expect(!name.isEmpty && !name.hasPrefix("."))
            #expect(!name.contains("/") && !name.contains("\\"))
            #expect(!name.unicodeScalars.contains { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format })
            #expect(name.utf8.count <= 255)
        }
        #expect(suggested.contains("x"))
        #expect(suggested.contains("hidden"))
        #expect(suggested.contains("abcgnp"))
        #expect(suggested.contains("win"))
        #expect(suggested.contains { $0.hasPrefix("namer-") })
        // What the owner sees is the stored name, already safe.
        for asset in try await harness.owner().assets() where created[asset.identifier] != nil {
            #expect(!asset.fileName.contains("/") && !asset.fileName.hasPrefix(".") && asset.fileName.utf8.count <= 255)
        }
    }

    @Test func anAppCannotCancelOrProbeAnotherAppsImageRequest() async throws {
        // 30 KB/s: the 32 KB photo takes about a second to come down, so the request is running.
        let harness = try await ServiceHarness.start(pickerOptions: ["--cloud-bandwidth", "30000"])
        defer { harness.stop() }
        let first = try await harness.registerApp("first")
        let second = try await harness.registerApp("second")
        for app in ["first", "second"] { try await harness.settings().setAccess(SetAccessRequest(app: app, readWrite: .full)) }
        let harbour = try await harness.asset(named: "harbour.jpg")
        try await harness.owner().offload(harbour.identifier)

        let requestID = Mutex<String?>(nil)
        let attempt = Mutex<Task<ErrorCode?, Never>?>(nil)
        let intruder = ImageManager(picker: second)
        var outcomes: [ImageRequestOutcome] = []
        for try await outcome in ImageManager(picker: first).requestImage(
            ImageRequest(asset: harbour.identifier, targetWidth: 100, targetHeight: 100, deliveryMode: .highQualityFormat, isNetworkAccessAllowed: true),
            progress: { _ in
                guard let id = requestID.withLock({ $0 }) else { return }
                attempt.withLock { task in
                    if task == nil { task = Task { await errorCode { try await intruder.cancelImageRequest(id) } } }
                }
            }, onStart: { id in requestID.withLock { $0 = id } }) {
            outcomes.append(outcome)
        }
        let task = attempt.withLock { $0 }
        let refused = await task?.value
        #expect(refused == .notFound)
        guard case .image(let image)? = outcomes.last else { throw LightboxError(.internal, "the first app's request did not finish: \(outcomes)") }
        #expect(image.pixelWidth == 100)
        // Nor can the second app learn whether an id is running: its own unknown ids read the same.
        #expect(await errorCode { try await intruder.cancelImageRequest(UUID().uuidString) } == .notFound)
    }
}
