import ArgumentParser
import Foundation
import LightboxClient
import LightboxCommandLineSupport
import LightboxProtocol
import LightboxTransport

extension PickerConfiguration.RepresentationMode: ExpressibleByArgument {}
extension LocationAccess: ExpressibleByArgument {}

struct PickCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pick",
        abstract: "Ask for a pick as an app; the owner completes it (`lightbox user …`). Prints one line per result.",
        discussion: "Needs no library permission. Output columns: token, types, asset identifier (with --photo-library).")

    @OptionGroup var services: ServiceOptions
    @Option(help: "The app to pick as (its key is DATA/apps/APP.key).") var app: String
    @Option(help: "Filter: images, videos, livePhotos, animatedImages, … or any(…), all(…), not(…).") var filter: String?
    @Option(help: "How many assets the owner may choose; 0 = no limit.") var limit = 1
    @Flag(help: "Keep the order in which the owner chose.") var ordered = false
    @Flag(help: "Bind to the photo library: results carry asset identifiers.") var photoLibrary = false
    @Option(help: "automatic, current or compatible (JPEG for HEIC and WebP stills).")
    var representation: PickerConfiguration.RepresentationMode = .automatic
    @Option(help: "Remove metadata from delivered images: none, location or all.") var strip: MetadataStripping = .none
    @Option(help: "Selection limit: the largest file the app takes, in bytes (20000000 for 20 MB); larger ones show disabled.")
    var maxFileSize: Int64?
    @Option(help: "Selection limit: the fewest pixels on the shorter side (1080).") var minPixels: Int?
    @Option(help: "Selection limit: the most pixels on the longer side (4096).") var maxPixels: Int?
    @Option(help: "Selection limit: the longest video, in seconds.") var maxDuration: Double?
    @Option(help: "Selection limit: the kinds that may be chosen, image, video or image,video.") var mediaTypes: String?
    @Option(help: "Ask for where the items were taken: none, approximate (about 10 km) or precise; the owner decides.")
    var location: LocationAccess = .none
    @Option(help: "Seconds to wait for the owner.") var pickTimeout = 600
    @Flag(help: "Print the results as JSON.") var json = false

    func run() async throws {
        var configuration = PickerConfiguration(selectionLimit: limit, selection: ordered ? .ordered : .default,
                                                preferredAssetRepresentationMode: representation, photoLibrary: photoLibrary,
                                                stripMetadata: strip, location: location)
        if let filter { configuration.filter = try PickerFilter(parsing: filter) }
        let limits = SelectionLimits(maxFileSize: maxFileSize, minPixels: minPixels, maxPixels: maxPixels, maxDuration: maxDuration,
                                     mediaTypes: try mediaTypes.map(Self.parseMediaTypes))
        if !limits.isEmpty { configuration.limits = limits }
        let picker = PhotoPicker(connection: try await services.pickerAsApp(app))
        let items = try await picker.pick(configuration, timeout: .seconds(pickTimeout)) { pick in
            note("waiting for the owner to complete \(pick) (lightbox user pending)")
        }
        if json {
            let results = items.map { PickerResult(assetIdentifier: $0.assetIdentifier, itemProvider: $0.itemProvider.descriptor) }
            print(String(decoding: try WireCoding.makeEncoder(sortedKeys: true).encode(results), as: UTF8.self))
            return
        }
        if items.isEmpty { note("the owner cancelled: no results") }
        for item in items {
            let types = item.itemProvider.registeredTypeIdentifiers.map(\.identifier).joined(separator: ",")
            print([item.itemProvider.descriptor.token, types, item.assetIdentifier ?? "-"].joined(separator: "\t"))
        }
    }

    static func parseMediaTypes(_ text: String) throws -> [MediaType] {
        try text.split(separator: ",").map { name in
            guard let type = MediaType(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("--media-types takes image, video or image,video; not \"\(name)\".")
            }
            return type
        }
    }
}

struct DescribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "describe", abstract: "Show an item provider's types and image properties (no bytes are loaded).")

    @OptionGroup var services: ServiceOptions
    @Argument(help: "The item provider token from `lightbox pick`.") var token: String
    @Option(help: "The app that picked.") var app: String

    func run() async throws {
        let connection = try await services.pickerAsApp(app)
        let description = try await connection.request(.describe, TokenRequest(token: token), as: ProviderDescription.self)
        let encoder = WireCoding.makeEncoder(sortedKeys: true)
        encoder.outputFormatting.insert(.prettyPrinted)
        print(String(decoding: try encoder.encode(description), as: UTF8.self))
    }
}

struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load", abstract: "Load an item provider's bytes into a file you own, with a progress bar.")

    @OptionGroup var services: ServiceOptions
    @Argument(help: "The item provider token from `lightbox pick`.") var token: String
    @Option(help: "The app that picked.") var app: String
    @Option(help: "The file to write; without an extension, the delivered type's is added (picked → picked.png).") var out: String
    @Option(help: "The type to load as (a registered type or a supertype such as public.image).") var type: String?
    @Flag(help: "Print a JSON summary (bytes, sha256, type, peak memory of this process).") var json = false

    func run() async throws {
        let connection = try await services.pickerAsApp(app)
        // The descriptor's types are not needed to load: the picker checks the type itself.
        let provider = ItemProvider(
            ItemProviderDescriptor(token: token, registeredTypeIdentifiers: [], suggestedName: nil, expiresAt: .distantFuture),
            connection: connection)
        let bar = ProgressBar("loading")
        var destination = URL(fileURLWithPath: out)
        let completion = try await provider.loadFileRepresentation(for: type.map { UTType($0) }, to: destination) { progress in
            bar.update(bytes: progress.completed, of: progress.total)
        }
        destination = try Self.named(destination, byType: completion.type)
        if json {
            let summary = LoadSummary(file: destination.path, bytes: completion.bytes, sha256: completion.sha256,
                                      type: completion.type?.identifier, peakMemoryBytes: ProcessMemory.peakResidentBytes())
            print(String(decoding: try WireCoding.makeEncoder(sortedKeys: true).encode(summary), as: UTF8.self))
        } else {
            print("\(destination.path)\t\(completion.bytes) bytes\t\(completion.type?.identifier ?? "?")\tsha256 \(completion.sha256)")
        }
    }

    /// The file named for what it holds: an `--out` without an extension gets the delivered type's;
    /// one whose extension says another type stays as asked, with a warning on standard error.
    static func named(_ file: URL, byType type: UTType?) throws -> URL {
        guard let type, let wanted = type.preferredFilenameExtension else { return file }
        let given = file.pathExtension.lowercased()
        if given.isEmpty {
            let named = file.appendingPathExtension(wanted)
            if FileManager.default.fileExists(atPath: named.path) { try FileManager.default.removeItem(at: named) }
            try FileManager.default.moveItem(at: file, to: named)
            return named
        }
        if UTType(filenameExtension: given) != type {
            FileHandle.standardError.write(Data("warning: \(file.lastPathComponent) holds \(type.identifier) bytes; a .\(wanted) name would say so\n".utf8))
        }
        return file
    }

    struct LoadSummary: Codable, Sendable {
        var file: String
        var bytes: Int64
        var sha256: String
        var type: String?
        var peakMemoryBytes: Int64
    }
}
