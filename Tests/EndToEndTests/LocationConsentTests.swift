import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Testing

/// Location only by consent, end to end: what an app receives of where a photo or movie was taken,
/// read back by exiftool and ffprobe, with no consent, approximate and precise, through picks and
/// through library access.
@Suite(.serialized) struct LocationConsentTests {
    static let folders = [ServiceHarness.samples, ServiceHarness.extraSamples]
    /// harbour.jpg, harbour.heic and located.mov were taken at 59.9139 N, 10.7522 E, 12 m up.
    static let (latitude, longitude) = (59.9139, 10.7522)
    /// The same on the approximate grid (docs/PROTOCOL.md, *Location by consent*).
    static let (approximateLatitude, approximateLongitude) = (59.9, 10.8)

    /// A folder with a photo, a HEIC and a movie whose only location is in their XMP (no EXIF GPS,
    /// no QuickTime location), made from the samples by exiftool.
    static func xmpLocatedFolder() async throws -> URL {
        let xmpFolder = URL(fileURLWithPath: "/tmp/lbxmp-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: xmpFolder, withIntermediateDirectories: true)
        let files = [(ServiceHarness.samples, "harbour.jpg", "xmp-located.jpg"), (ServiceHarness.extraSamples, "harbour.heic", "xmp-located.heic"),
                     (ServiceHarness.samples, "clip.mp4", "xmp-located.mp4")]
        for (folder, sample, name) in files {
            let file = xmpFolder.appendingPathComponent(name)
            try FileManager.default.copyItem(at: folder.appendingPathComponent(sample), to: file)
            try await Exiftool.write(["-gps:all=", "-XMP:GPSLatitude=\(Self.latitude)", "-XMP:GPSLongitude=\(Self.longitude)"], to: file)
            let xmpFields = try await Exiftool.locationFields(of: file)
            #expect(xmpFields["XMP-exif:GPSLatitude"] != nil && xmpFields["GPS:GPSLatitude"] == nil, "\(xmpFields)")
        }
        return xmpFolder
    }

    /// Whether `file` is a HEIC (an ISO base media file whose brand is heic or mif1).
    static func isHEIC(_ file: URL) throws -> Bool {
        let head = try FileHandle(forReadingFrom: file).read(upToCount: 12) ?? Data()
        return head.count == 12 && head[4..<8] == Data("ftyp".utf8) && [Data("heic".utf8), Data("mif1".utf8)].contains(head[8..<12])
    }

    @Test func aPickWithoutConsentDeliversNoLocationInAnyFormat() async throws {
        let xmpFolder = try await Self.xmpLocatedFolder()
        defer { try? FileManager.default.removeItem(at: xmpFolder) }

        let harness = try await ServiceHarness.start(importFolders: Self.folders + [xmpFolder])
        defer { harness.stop() }
        let app = try await harness.registerApp("journal")
        let original = ServiceHarness.samples.appendingPathComponent("harbour.jpg")
        #expect(try await Exiftool.locationFields(of: original)["GPS:GPSLatitude"] != nil, "the sample has a location: what follows can fail")

        // The app does not ask; then it asks, and the owner gives none.
        for (name, file) in [("harbour.jpg", "none.jpg"), ("harbour.heic", "none.heic"), ("located.mov", "none.mov"), ("hevc.mov", "none-hevc.mov"),
                             ("xmp-located.jpg", "none-xmp.jpg"), ("xmp-located.heic", "none-xmp.heic"),
                             ("xmp-located.mp4", "none-xmp.mp4")] {
            let provider = try await harness.pickProvider(named: name, as: app, PickerConfiguration(), location: nil)
            let delivered = harness.root.appendingPathComponent(file)
            try await provider.loadFileRepresentation(to: delivered)
            let fields = try await Exiftool.locationFields(of: delivered)
            #expect(fields.isEmpty, "\(name) delivered with \(fields)")
            #expect(try await provider.describe().imageProperties?["{GPS}"] == nil)
            if name.hasSuffix(".heic") {
                // The format is kept: the location is removed in place.
                #expect(provider.registeredTypeIdentifiers.first == .heic, "\(provider.registeredTypeIdentifiers)")
                #expect(try Self.isHEIC(delivered), "\(name) delivered as a HEIC")
                #expect(try await Exiftool.fields(of: delivered)["IFD0:Make"] == "Lightbox", "\(name) keeps its camera")
            }
            if name.hasSuffix(".mov") || name.hasSuffix(".mp4") {
                #expect(!(try FFprobe.read(delivered).tags.keys.contains { $0.lowercased().contains("location") }))
            }
            if name == "harbour.jpg" {
                let lines = try await Exiftool.gpsLines(of: delivered)
                print("LocationConsentTests: none: \(lines)")
            }
        }
        let asked = try await harness.pickProvider(named: "harbour.jpg", as: app, PickerConfiguration(location: .precise), location: LocationAccess.none)
        let refused = harness.root.appendingPathComponent("refused.jpg")
        try await asked.loadFileRepresentation(to: refused)
        #expect(try await Exiftool.locationFields(of: refused).isEmpty)
        // The camera and the date stay: only the location goes.
        #expect(try await Exiftool.fields(of: refused)["IFD0:Make"] == "Lightbox")
    }

    @Test func approximateRoundsToTheGridAndDropsAltitude() async throws {
        let harness = try await ServiceHarness.start(importFolders: Self.folders)
        defer { harness.stop() }
        let app = try await harness.registerApp("journal")

        // The owner may give less than asked, never more: precise for an approximate request is approximate.
        let provider = try await harness.pickProvider(named: "harbour.jpg", as: app, PickerConfiguration(location: .approximate), location: .precise)
        let delivered = harness.root.appendingPathComponent("approximate.jpg")
        try await provider.loadFileRepresentation(to: delivered)
        let fields = try await Exiftool.locationFields(of: delivered)
        #expect(try #require(Double(fields["GPS:GPSLatitude"] ?? "")) == Self.approximateLatitude)
        #expect(try #require(Double(fields["GPS:GPSLongitude"] ?? "")) == Self.approximateLongitude)
        #expect(fields["GPS:GPSLatitudeRef"] == "N" && fields["GPS:GPSLongitudeRef"] == "E")
        #expect(Set(fields.keys).isSubset(of: ["GPS:GPSVersionID", "GPS:GPSLatitudeRef", "GPS:GPSLatitude", "GPS:GPSLongitudeRef",
                                                "GPS:GPSLongitude", "Composite:GPSLatitude", "Composite:GPSLongitude", "Composite:GPSPosition"]),
                "\(fields)")
        let lines = try await Exiftool.gpsLines(of: delivered)
        print("LocationConsentTests: approximate: \(lines)")
        let gps = try #require(try await provider.describe().imageProperties?["{GPS}"])
        #expect(gps == .object(["Latitude": .number(Self.approximateLatitude), "LatitudeRef": .string("N"),
                                "Longitude": .number(Self.approximateLongitude), "LongitudeRef": .string("E")]))

        // A HEIC stays a HEIC (`current`), approximated in place; a movie with the snapped ISO 6709 point.
        let heic = try await harness.pickProvider(named: "harbour.heic", as: app, PickerConfiguration(preferredAssetRepresentationMode: .current, location: .approximate),
                                                  location: .approximate)
        #expect(heic.registeredTypeIdentifiers == [.heic])
        let heicFile = harness.root.appendingPathComponent("approximate.heic")
        try await heic.loadFileRepresentation(to: heicFile)
        #expect(try Self.isHEIC(heicFile))
        let heicFields = try await Exiftool.locationFields(of: heicFile)
        #expect(Double(heicFields["GPS:GPSLatitude"] ?? "") == Self.approximateLatitude, "\(heicFields)")
        #expect(heicFields["GPS:GPSAltitude"] == nil && heicFields["GPS:GPSMapDatum"] == nil, "\(heicFields)")
        let movie = try await harness.pickProvider(named: "located.mov", as: app, PickerConfiguration(location: .approximate), location: .approximate)
        let movieFile = harness.root.appendingPathComponent("approximate.mov")
        try await movie.loadFileRepresentation(to: movieFile)
        let probe = try FFprobe.read(movieFile)
        #expect(probe.tags["com.apple.quicktime.location.ISO6709"] == "+59.9000+010.8000/", "\(probe.tags)")
        #expect(!probe.tags.values.contains { $0.contains("59.9139") || $0.contains("+012") })
        #expect(try Data(contentsOf: movieFile).range(of: Data("59.9139".utf8)) == nil)
        #expect(probe.tags["make"] == "Lightbox", "the camera stays")
    }

    @Test func anXMPOnlyPositionIsSnappedInStillsAsInMovies() async throws {
        let xmpFolder = try await Self.xmpLocatedFolder()
        defer { try? FileManager.default.removeItem(at: xmpFolder) }
        let harness = try await ServiceHarness.start(importFolders: [xmpFolder])
        defer { harness.stop() }
        let app = try await harness.registerApp("journal")
        for name in ["xmp-located.jpg", "xmp-located.heic", "xmp-located.mp4"] {
            let configuration = PickerConfiguration(preferredAssetRepresentationMode: .current, location: .approximate)
            let provider = try await harness.pickProvider(named: name, as: app, configuration, location: .approximate)
            let delivered = harness.root.appendingPathComponent("approximate-\(name)")
            try await provider.loadFileRepresentation(to: delivered)
            #expect(try Data(contentsOf: delivered).range(of: Data("59.9139".utf8)) == nil, "\(name)")
            if name.hasSuffix(".mp4") {
                let tags = try FFprobe.read(delivered).tags
                #expect(tags.values.contains("+59.9000+010.8000/"), "\(name): \(tags)")
                continue
            }
            let fields = try await Exiftool.locationFields(of: delivered)
            #expect(Double(fields["XMP-exif:GPSLatitude"] ?? "") == Self.approximateLatitude, "\(name): \(fields)")
            #expect(Double(fields["XMP-exif:GPSLongitude"] ?? "") == Self.approximateLongitude, "\(name): \(fields)")
            #expect(fields["GPS:GPSLatitude"] == nil, "\(name): \(fields)")
            if name.hasSuffix(".heic") { #expect(try Self.isHEIC(delivered)) }
            print("LocationConsentTests: approximate from XMP only (\(name)): \(fields)")
        }
    }

    @Test func preciseDeliversTheOriginalValues() async throws {
        let harness = try await ServiceHarness.start(importFolders: Self.folders)
        defer { harness.stop() }
        let app = try await harness.registerApp("inaturalist")
        let original = ServiceHarness.samples.appendingPathComponent("harbour.jpg")
        let provider = try await harness.pickProvider(named: "harbour.jpg", as: app, PickerConfiguration(location: .precise), location: .precise)
        let delivered = harness.root.appendingPathComponent("precise.jpg")
        try await provider.loadFileRepresentation(to: delivered)
        #expect(try sha256(delivered) == (try sha256(original)), "the original's bytes")
        #expect(try await Exiftool.locationFields(of: delivered) == (try await Exiftool.locationFields(of: original)))
        let lines = try await Exiftool.gpsLines(of: delivered)
        print("LocationConsentTests: precise: \(lines)")
        let gps = try #require(try await provider.describe().imageProperties?["{GPS}"])
        #expect(gps["Altitude"] == .number(12))
        let movie = try await harness.pickProvider(named: "located.mov", as: app, PickerConfiguration(location: .precise), location: .precise)
        let movieFile = harness.root.appendingPathComponent("precise.mov")
        try await movie.loadFileRepresentation(to: movieFile)
        #expect(try FFprobe.read(movieFile).tags["location"] == "+59.9139+010.7522+012.000/")
    }

    @Test func libraryAccessDeliversTheLocationTheOwnerGave() async throws {
        let harness = try await ServiceHarness.start(importFolders: Self.folders)
        defer { harness.stop() }
        let app = try await harness.registerApp("journal")
        let library = try await harness.library(for: "journal")
        let settings = try await harness.settings()
        let harbour = try await harness.asset(named: "harbour.jpg")
        let located = try await harness.asset(named: "located.mov")

        // Asked with readWrite: one prompt for both; the owner gives approximate.
        async let asked = library.requestAccess(for: .readWrite, location: .precise)
        let prompt = try await harness.openPrompt(settings, app: "journal")
        #expect(prompt.kind == .authorization && prompt.location == .precise)
        try await settings.answer(prompt.prompt, .full, location: .approximate)
        let reply = try await asked
        #expect(reply.status == .authorized && reply.location == .approximate)
        #expect(try await library.locationAccess() == .approximate)

        let properties = try await app.request(.imageProperties, AssetRequest(asset: harbour.identifier), as: ImagePropertiesResponse.self).properties
        #expect(properties["{GPS}"] == .object(["Latitude": .number(Self.approximateLatitude), "LatitudeRef": .string("N"),
                                                "Longitude": .number(Self.approximateLongitude), "LongitudeRef": .string("E")]))
        let manager = ImageManager(picker: app)
        let movie = harness.root.appendingPathComponent("library-approximate.mov")
        _ = try await manager.requestVideo(VideoRequest(asset: located.identifier, deliveryMode: .highQualityFormat), to: movie)
        #expect(try FFprobe.read(movie).tags["com.apple.quicktime.location.ISO6709"] == "+59.9000+010.8000/")
        let fast = harness.root.appendingPathComponent("library-fast.mp4")
        _ = try await manager.requestVideo(VideoRequest(asset: located.identifier, deliveryMode: .fastFormat), to: fast)
        #expect(try FFprobe.read(fast).tags["com.apple.quicktime.location.ISO6709"] == "+59.9000+010.8000/")
        // Image renditions carry no metadata at all, whatever the location.
        guard case .image(let image) = try await manager.requestImage(ImageRequest(asset: harbour.identifier, deliveryMode: .highQualityFormat)) else {
            throw LightboxError(.internal, "no image")
        }
        let rendition = harness.root.appendingPathComponent("rendition.jpg")
        try image.data.write(to: rendition)
        #expect(try await Exiftool.locationFields(of: rendition).isEmpty)

        // Asking again gives what is stored, without a prompt.
        #expect(try await library.requestAccess(for: .readWrite, location: .precise).location == .approximate)
        #expect(try await settings.prompts().isEmpty)

        // The owner takes it away on the Privacy page: in force on the picker once acknowledged.
        let none = try await settings.setAccess(SetAccessRequest(app: "journal", location: LocationAccess.none))
        #expect(none.access.location == LocationAccess.none && none.access.locationRequested == .precise)
        let bare = try await app.request(.imageProperties, AssetRequest(asset: harbour.identifier), as: ImagePropertiesResponse.self).properties
        #expect(bare["{GPS}"] == nil)
        let noLocation = harness.root.appendingPathComponent("library-none.mov")
        _ = try await manager.requestVideo(VideoRequest(asset: located.identifier, deliveryMode: .highQualityFormat), to: noLocation)
        #expect(!(try FFprobe.read(noLocation).tags.keys.contains { $0.lowercased().contains("location") }))

        // And gives the precise one it asked for: the original itself.
        _ = try await settings.setAccess(SetAccessRequest(app: "journal", location: .precise))
        let precise = harness.root.appendingPathComponent("library-precise.mov")
        _ = try await manager.requestVideo(VideoRequest(asset: located.identifier, deliveryMode: .highQualityFormat), to: precise)
        #expect(try sha256(precise) == (try sha256(ServiceHarness.extraSamples.appendingPathComponent("located.mov"))))

        // Each change is in the audit trail.
        let lines = try await settings.audit(app: "journal").filter { $0.operation.hasPrefix("location:") }
        #expect(lines.map(\.operation).sorted() == ["location:prompt", "location:settings", "location:settings"])
        #expect(lines.map(\.outcome).sorted() == ["approximate", "none", "precise"])
    }

    @Test func anAppWithAccessIsAskedOnceForALocationOfItsOwn() async throws {
        let harness = try await ServiceHarness.start()
        defer { harness.stop() }
        let app = try await harness.registerApp("frame")
        let library = try await harness.library(for: "frame")
        let settings = try await harness.settings()
        let harbour = try await harness.asset(named: "harbour.jpg")
        _ = try await settings.setAccess(SetAccessRequest(app: "frame", readWrite: .full))
        // The owner cannot give a location the app did not ask for.
        #expect(try await settings.setAccess(SetAccessRequest(app: "frame", location: .precise)).access.location == LocationAccess.none)

        async let asked = library.requestAccess(for: .readWrite, location: .approximate)
        let prompt = try await harness.openPrompt(settings, app: "frame")
        #expect(prompt.kind == .location && prompt.location == .approximate)
        try await settings.answer(prompt.prompt, .allow, location: .approximate)
        #expect(try await asked.location == .approximate)
        let properties = try await app.request(.imageProperties, AssetRequest(asset: harbour.identifier), as: ImagePropertiesResponse.self).properties
        #expect(properties["{GPS}"]?["Latitude"] == .number(Self.approximateLatitude))
        // Once asked, never again: the stored answer comes back.
        #expect(try await library.requestAccess(for: .readWrite, location: .approximate).location == .approximate)
        #expect(try await settings.prompts().isEmpty)
        // Access ended takes the location with it.
        _ = try await settings.setAccess(SetAccessRequest(app: "frame", readWrite: SetAccessRequest.ReadWrite.none))
        #expect(try await library.locationAccess() == LocationAccess.none)
    }
}

/// exiftool's reading of a file: every tag, or those that say where it was taken.
enum Exiftool {
    /// Tags as `Group:Name` → value (`-n`: numbers as numbers, so 59.9 rather than 59 deg 54').
    static func fields(of file: URL) async throws -> [String: String] {
        let output = try await run(["-j", "-n", "-a", "-G1", file.path])
        guard let objects = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]], let object = objects.first else {
            throw LightboxError(.badMedia, "exiftool could not read \(file.lastPathComponent)")
        }
        return object.mapValues { "\($0)" }
    }

    /// The tags that place the file: GPS (EXIF, XMP, composite), QuickTime and MP4 locations.
    static func locationFields(of file: URL) async throws -> [String: String] {
        try await fields(of: file).filter { key, _ in
            let name = key.lowercased()
            return name.contains("gps") || name.contains("location") || name.contains("iso6709")
        }
    }

    /// exiftool's own lines for the GPS fields, as a person reads them (for the closing note).
    static func gpsLines(of file: URL) async throws -> String {
        let text = try await run(["-a", "-G1", "-s", "-gps:all", "-Composite:GPSPosition", file.path])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "(no GPS fields)" : "\n" + text
    }

    /// Rewrites `file` in place with exiftool's tag assignments (`-TAG=VALUE`, `-TAG=` to remove).
    static func write(_ assignments: [String], to file: URL) async throws {
        _ = try await run(["-q", "-overwrite_original"] + assignments + [file.path])
    }

    private static func run(_ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        process.arguments = arguments
        return try await ServiceHarness.runToEnd(process).output
    }
}
