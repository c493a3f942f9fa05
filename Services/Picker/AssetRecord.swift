import Foundation
import LightboxProtocol

/// One asset in the catalog: an original kept content-addressed under the library folder.
struct AssetRecord: Encodable, Sendable {
    var identifier: String
    var contentHash: String
    var fileName: String
    /// Relative to the originals folder; never a path a client gave.
    var storedPath: String
    var type: UTType
    var mediaType: MediaType
    var subtypes: String
    var pixelWidth: Int?
    var pixelHeight: Int?
    var frameCount: Int?
    var duration: Double?
    var fileSize: Int64
    var creationDate: Date
    var importedAt: Date
    /// The original lives in the cloud tier, not in the local originals folder.
    var isInCloud = false
    /// CGImageSource-style properties read at import, as JSON.
    var properties = "{}"
    /// A Live Photo's movie, stored beside the still's original (relative to the originals folder).
    var pairedPath: String?
    var pairedHash: String?
    var pairedType: UTType?
    /// Where it was taken, named at import from its GPS position (`ReverseGeocoder`); nil without one.
    var city: String?
    var country: String?
    /// The camera that took it ("Apple iPhone 15 Pro", `CameraName`), from its EXIF.
    var camera: String?

    /// The Live Photo's movie as an asset of its own, for delivering it like any original.
    var pairedMovie: AssetRecord? {
        guard let pairedPath, let pairedHash, let pairedType else { return nil }
        var movie = self
        movie.storedPath = pairedPath
        movie.contentHash = pairedHash
        movie.type = pairedType
        movie.mediaType = .video
        movie.pairedPath = nil
        movie.isInCloud = false  // the cloud tier holds the still's original only
        return movie
    }

    var subtypeSet: Set<MediaSubtype> {
        Set(AssetSummary.subtypes(stored: subtypes))
    }

    var traits: AssetTraits { AssetTraits(mediaType: mediaType, subtypes: subtypeSet, type: type) }

    /// Read on every describe, with `WireJSONDecoder` (without JSONDecoder's fixed work per call).
    var imageProperties: [String: JSONValue] {
        (try? WireJSONDecoder.decode([String: JSONValue].self, from: Data(properties.utf8))) ?? [:]
    }

    /// The EXIF orientation (1–8) among `properties`, decoded without building the whole dictionary
    /// (which every cached thumbnail request would otherwise pay for).
    var orientation: Int? {
        struct OrientationOnly: Decodable {
            var Orientation: Double?
        }
        return (try? WireJSONDecoder.decode(OrientationOnly.self, from: Data(properties.utf8)))?.Orientation.map { Int($0) }
    }

    var isAnimated: Bool { subtypeSet.contains(.animated) }

    var summary: AssetSummary {
        AssetSummary(identifier: identifier, fileName: SafeFileName.make(fileName), type: type, mediaType: mediaType,
                     subtypes: AssetSummary.subtypes(stored: subtypes), pixelWidth: pixelWidth,
                     pixelHeight: pixelHeight, duration: duration, fileSize: fileSize, creationDate: creationDate,
                     isInCloud: isInCloud)
    }

    /// The few properties every description carries, typed.
    var basicProperties: ImageProperties {
        ImageProperties(pixelWidth: pixelWidth, pixelHeight: pixelHeight, isAnimated: subtypeSet.contains(.animated),
                        frameCount: frameCount, duration: duration, creationDate: creationDate)
    }

    /// Library order, newest first (the order `Catalog.allAssets` reads them in).
    static func precedesInLibrary(_ first: AssetRecord, _ second: AssetRecord) -> Bool {
        first.creationDate != second.creationDate ? first.creationDate > second.creationDate : first.identifier < second.identifier
    }

    /// The name an app would save it under, without extension (NSItemProvider.suggestedName);
    /// made safe again on the way out, whatever older versions stored.
    var suggestedName: String {
        let name = (SafeFileName.make(fileName) as NSString).deletingPathExtension
        return name.isEmpty ? "asset" : name
    }
}

/// PhotoKit-style local identifiers, `<UUID>/L0/001`. The owner's imports derive them from the
/// content, so they stay the same across restarts and re-imports; an app's creation gets a random
/// one, so it never names (or collides with) an asset the app could not see.
enum AssetIdentifier {
    static func make(contentHash: String) -> String {
        let hex = Array(contentHash.uppercased().prefix(32))
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }
        return groups.joined(separator: "-") + "/L0/001"
    }

    static func makeUnique() -> String {
        UUID().uuidString + "/L0/001"
    }
}
