import Foundation
import LightboxProtocol

/// An app's edit of an asset: the asset's current version, a file of its own stored beside the
/// original (which is never changed), with the adjustment data the app described it with. One
/// per asset at most (`assetEdit`, keyed by the asset): a new edit replaces the last, a revert
/// removes it.
struct AssetEdit: Sendable, Hashable {
    var asset: String
    /// The edited file's SHA-256: what its renditions are named by, so the current version's
    /// thumbnails and sizes are never the original's.
    var contentHash: String
    /// Relative to the originals folder, like an original's.
    var storedPath: String
    var type: UTType
    var pixelWidth: Int?
    var pixelHeight: Int?
    var duration: Double?
    var fileSize: Int64
    /// CGImageSource-style properties of the edited file, as JSON.
    var properties: String
    /// The app that made it, and its name then ("Edited by Darkroom").
    var app: String
    var appName: String?
    var adjustment: AdjustmentData
    var editedAt: Date

    /// Where the edited file is kept.
    var file: OriginalFile { OriginalFile(path: storedPath) }

    /// `original` as this edit makes it: the edited file, content and facts in place of the
    /// original's, so renditions, streams and descriptor delivery serve it like any original. A
    /// Live Photo keeps its movie (an edit replaces the still).
    func currentVersion(of original: AssetRecord) -> AssetRecord {
        var current = original
        current.contentHash = contentHash
        current.storedPath = storedPath
        current.type = type
        current.pixelWidth = pixelWidth
        current.pixelHeight = pixelHeight
        current.duration = duration ?? (original.mediaType == .video ? original.duration : nil)
        current.frameCount = nil
        current.fileSize = fileSize
        current.properties = properties
        // The edit is kept on this machine; the cloud tier holds originals only.
        current.isInCloud = false
        return current
    }

    /// What apps are told about it (never which app made it).
    var version: EditedVersion {
        EditedVersion(adjustment: adjustment, editedAt: editedAt, type: type, pixelWidth: pixelWidth, pixelHeight: pixelHeight,
                      duration: duration, fileSize: fileSize)
    }

    /// What the owner is told about it.
    var ownerView: OwnerAssetEdit { OwnerAssetEdit(app: app, appName: appName, version: version) }
}
