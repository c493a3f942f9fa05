import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Testing

/// Edits with the original kept, end to end against both services: an app's edit becomes the
/// current version of a photo or a movie (what image and video requests give, what the owner's
/// thumbnails show) while the original stays readable with `version: original`; a revert brings it
/// back; every edit and revert is a library change and an audit line; only read-write access edits,
/// a limited app only its selection; a file that is not media is refused and changes nothing.
@Suite(.serialized) struct EditTests {
    static let adjustment = AdjustmentData(format: "com.example.darkroom", version: "1.0", data: Data(#"{"crop":[0,0,320,320]}"#.utf8))

    /// What `ffmpeg` makes of `input` with `arguments`, as an editor would save it.
    static func ffmpeg(_ input: URL, _ arguments: [String], to output: URL) async throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-v", "error", "-y", "-i", input.path] + arguments + [output.path]
        let run = try await ServiceHarness.runToEnd(process)
        #expect(run.status == 0, "ffmpeg: \(run.errors)")
        return try Data(contentsOf: output)
    }

    /// The error an operation throws, or nil when it succeeds.
    static func refusal<T>(_ operation: () async throws -> T) async -> LightboxError? {
        do {
            _ = try await operation()
            return nil
        } catch {
            return error as? LightboxError ?? LightboxError(.internal, "\(error)")
        }
    }

    static func image(_ outcome: ImageRequestOutcome) throws -> RenderedImage {
        guard case .image(let image) = outcome else { throw LightboxError(.internal, "no image: \(outcome)") }
        return image
    }

    @Test func anEditIsTheCurrentVersionAndTheOriginalIsKept() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let owner = try await harness.owner()
        let settings = try await harness.settings()
        let harbour = try await harness.asset(named: "harbour.jpg")
        let clip = try await harness.asset(named: "clip.mp4")
        let picker = try await harness.registerApp("darkroom")
        try await settings.setAccess(SetAccessRequest(app: "darkroom", readWrite: .full))
        let library = try await harness.library(for: "darkroom")
        let manager = ImageManager(picker: picker)
        let watch = LibraryChangeTests.Collector(library.libraryChanges())
        defer { watch.task.cancel() }
        try await Task.sleep(for: .milliseconds(300))
        let thumbnailBefore = try await owner.thumbnail(of: harbour.identifier)

        // A square crop of the 640 × 480 photo.
        let cropped = try await Self.ffmpeg(ServiceHarness.samples.appendingPathComponent("harbour.jpg"), ["-vf", "crop=320:320:0:0"],
                                            to: harness.root.appendingPathComponent("cropped.jpg"))
        #expect(try await library.editingInput(for: harbour.identifier) == nil)
        let edited = try await library.edit(harbour.identifier, adjustment: Self.adjustment, edited: cropped)
        #expect(edited.type == .jpeg && edited.pixelWidth == 320 && edited.pixelHeight == 320 && edited.fileSize == Int64(cropped.count))
        #expect(try await library.editingInput(for: harbour.identifier)?.adjustment == Self.adjustment)

        let current = try Self.image(try await manager.requestImage(ImageRequest(asset: harbour.identifier, deliveryMode: .highQualityFormat)))
        let original = try Self.image(try await manager.requestImage(
            ImageRequest(asset: harbour.identifier, deliveryMode: .highQualityFormat, version: .original)))
        #expect(current.pixelWidth == 320 && current.pixelHeight == 320)
        #expect(original.pixelWidth == 640 && original.pixelHeight == 480)
        #expect(current.data != original.data)
        // The owner's thumbnail and details are of the current version, and say who made it.
        let thumbnail = try await owner.thumbnail(of: harbour.identifier)
        #expect(thumbnailBefore.info.pixelWidth == 256 && thumbnailBefore.info.pixelHeight == 192)
        #expect(thumbnail.info.pixelWidth == 256 && thumbnail.info.pixelHeight == 256 && thumbnail.info.etag != thumbnailBefore.info.etag)
        let details = try await owner.details(of: harbour.identifier)
        #expect(details.edit?.app == "darkroom" && details.edit?.appName == "App darkroom")
        #expect(details.edit?.version.adjustment == Self.adjustment && details.summary.pixelWidth == 640)

        // A pick delivers the current version, as the owner saw it on the sheet (streamed and described).
        var picked = try await harness.pickProvider(named: "harbour.jpg", as: picker)
        picked.delivery = .stream
        #expect(try await picked.loadDataRepresentation() == cropped)
        #expect(try await picked.describe().properties.pixelWidth == 320)

        // A movie's edit: video requests give it, or the original untouched.
        let sample = ServiceHarness.samples.appendingPathComponent("clip.mp4")
        let shorter = try await Self.ffmpeg(sample, ["-t", "0.5", "-vf", "scale=96:-2", "-an"], to: harness.root.appendingPathComponent("short.mp4"))
        let movieEdit = try await library.edit(clip.identifier, adjustment: Self.adjustment, edited: shorter)
        #expect(movieEdit.type == .mpeg4Movie && movieEdit.pixelWidth == 96)
        let currentMovie = harness.root.appendingPathComponent("current.mp4")
        let originalMovie = harness.root.appendingPathComponent("original.mp4")
        _ = try await manager.requestVideo(VideoRequest(asset: clip.identifier, deliveryMode: .highQualityFormat), to: currentMovie)
        _ = try await manager.requestVideo(VideoRequest(asset: clip.identifier, deliveryMode: .highQualityFormat, version: .original),
                                           to: originalMovie)
        #expect(try Data(contentsOf: currentMovie) == shorter)
        #expect(try Data(contentsOf: originalMovie) == Data(contentsOf: sample))

        // What is not usable media, or not the original's kind, is refused and changes nothing.
        let broken = await Self.refusal { try await library.edit(harbour.identifier, adjustment: Self.adjustment, edited: Data("not a photo at all".utf8)) }
        #expect(broken?.code == .badMedia && broken?.message.contains("edited version") == true, "\(String(describing: broken))")
        #expect(await errorCode { try await library.edit(harbour.identifier, adjustment: Self.adjustment, edited: shorter) } == .badRequest)
        let tooLong = AdjustmentData(format: "com.example.darkroom", version: "1.0", data: Data(count: AdjustmentData.maximumDataBytes + 1))
        #expect(await errorCode { try await library.edit(harbour.identifier, adjustment: tooLong, edited: cropped) } == .badRequest)
        #expect(try await library.editingInput(for: harbour.identifier)?.pixelWidth == 320)

        // Back to the original.
        #expect(try await library.revertToOriginal(harbour.identifier))
        #expect(try await library.editingInput(for: harbour.identifier) == nil)
        let back = try Self.image(try await manager.requestImage(ImageRequest(asset: harbour.identifier, deliveryMode: .highQualityFormat)))
        #expect(back.pixelWidth == 640 && back.data == original.data)
        #expect(try await owner.details(of: harbour.identifier).edit == nil)
        #expect(try await library.revertToOriginal(harbour.identifier) == false)

        // Watchers heard of each edit and revert; each is in the audit trail.
        let changes = try await watch.wait { $0.flatMap(\.changed).count >= 3 }
        #expect(changes.flatMap(\.changed) == [harbour.identifier, clip.identifier, harbour.identifier])
        // Six decisions (two edits, two refused files, two reverts) and the two edits' own lines.
        let edits = try await settings.audit(app: "darkroom", operation: "edit", atLeast: 8)
        #expect(edits.filter { $0.outcome == AuditOutcome.edited.rawValue }.compactMap(\.asset) == [clip.identifier, harbour.identifier])
        let reverts = try await settings.audit(app: "darkroom", operation: "revert", atLeast: 2)
        #expect(reverts.map(\.outcome).sorted() == ["ok", "reverted"])

        // An edit's file goes with its revert, and with its asset.
        let originals = harness.directory.dataDirectory.appendingPathComponent("picker/originals")
        let editFiles = { (FileManager.default.enumerator(atPath: originals.path)?.allObjects as? [String] ?? []).filter { $0.contains("-edit-") } }
        #expect(editFiles().count == 1)
        #expect(try await owner.delete([clip.identifier]) == [clip.identifier])
        #expect(editFiles().isEmpty)
    }

    @Test func onlyReadWriteAccessEditsAndALimitedAppOnlyItsSelection() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let owner = try await harness.owner()
        let settings = try await harness.settings()
        let harbour = try await harness.asset(named: "harbour.jpg")
        let sunset = try await harness.asset(named: "sunset.png")
        _ = try await harness.registerApp("limited", preventAutomaticLimitedAccessAlert: true)
        _ = try await harness.registerApp("adder")
        try await settings.setAccess(SetAccessRequest(app: "limited", readWrite: .limited, selection: [harbour.identifier]))
        try await settings.setAccess(SetAccessRequest(app: "adder", addOnly: .allow))
        let limited = try await harness.library(for: "limited")
        let adder = try await harness.library(for: "adder")
        let meadow = try Data(contentsOf: ServiceHarness.samples.appendingPathComponent("meadow.webp"))

        // Outside its selection a limited app edits nothing, as if the asset were not there.
        #expect(await errorCode { try await limited.edit(sunset.identifier, adjustment: Self.adjustment, edited: meadow) } == .notFound)
        #expect(await errorCode { try await limited.revertToOriginal(sunset.identifier) } == .notFound)
        // Add-only access adds, never changes what is there.
        let refused = await Self.refusal { try await adder.edit(harbour.identifier, adjustment: Self.adjustment, edited: meadow) }
        #expect(refused?.code == .notAuthorized && refused?.message.contains("read-write") == true, "\(String(describing: refused))")
        #expect(await errorCode { try await adder.revertToOriginal(harbour.identifier) } == .notAuthorized)

        // Inside its selection it may: a WebP edit of a JPEG (any still format the library imports).
        let edited = try await limited.edit(harbour.identifier, adjustment: Self.adjustment, edited: meadow)
        #expect(edited.type == .webP && edited.pixelWidth == 400 && edited.pixelHeight == 300)
        // The owner reverts it; the line is written under the app whose edit it undid.
        #expect(try await owner.revert(harbour.identifier))
        #expect(try await owner.revert(harbour.identifier) == false)
        #expect(try await limited.editingInput(for: harbour.identifier) == nil)
        let ownerReverts = try await settings.audit(app: "limited", operation: "revert:owner", atLeast: 1)
        #expect(ownerReverts.map(\.outcome) == ["reverted"] && ownerReverts.first?.asset == harbour.identifier)
        let refusals = try await settings.audit(app: "adder", operation: "edit", atLeast: 2)
        #expect(refusals.allSatisfy { $0.outcome.hasPrefix(AuditOutcome.refusalPrefix) })
    }
}
