import Foundation

/// PHAdjustmentData: what an app says about its edit, so that it (or another app that knows the
/// format) can start again from the original and continue it. Opaque to Lightbox; kept with the edit.
public struct AdjustmentData: Codable, Sendable, Hashable {
    /// Who can read `data`: a reverse-DNS name such as `com.example.darkroom`.
    public var format: String
    /// Which version of that format (`"1.0"`).
    public var version: String
    /// The app's own description of the edit; base64 on the wire.
    public var data: Data

    /// The longest `format` and `version`, in characters, and `data`, in bytes.
    public static let maximumNameLength = 200
    public static let maximumDataBytes = 65_536

    public init(format: String, version: String, data: Data) {
        self.format = format
        self.version = version
        self.data = data
    }

    enum CodingKeys: String, CodingKey { case format, version, data }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        format = try container.decode(String.self, forKey: .format)
        version = try container.decode(String.self, forKey: .version)
        let text = try container.decode(String.self, forKey: .data)
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.dataCorruptedError(forKey: .data, in: container, debugDescription: "adjustment data must be base64")
        }
        self.data = data
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(version, forKey: .version)
        try container.encode(data.base64EncodedString(), forKey: .data)
    }
}

/// `library.edit`: saves an edited version of an asset, the original kept (PHContentEditingOutput).
/// The edited photo or movie follows the header as one binary frame.
public struct EditAssetRequest: Codable, Sendable {
    public var asset: String
    public var adjustment: AdjustmentData
    public init(asset: String, adjustment: AdjustmentData) {
        self.asset = asset
        self.adjustment = adjustment
    }
}

/// An asset's current version when it is an edit: what it is, and what the app said about it.
public struct EditedVersion: Codable, Sendable, Hashable {
    public var adjustment: AdjustmentData
    public var editedAt: Date
    public var type: UTType
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    public var duration: Double?
    public var fileSize: Int64
    public init(adjustment: AdjustmentData, editedAt: Date, type: UTType, pixelWidth: Int?, pixelHeight: Int?, duration: Double?,
                fileSize: Int64) {
        self.adjustment = adjustment
        self.editedAt = editedAt
        self.type = type
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.duration = duration
        self.fileSize = fileSize
    }
}

/// `library.edit`'s answer, and `library.editingInput`'s (PHContentEditingInput): the asset's
/// current version when it is an edit; no `edit` when the current version is the original.
public struct EditingInput: Codable, Sendable, Hashable {
    public var asset: String
    public var edit: EditedVersion?
    public init(asset: String, edit: EditedVersion?) {
        self.asset = asset
        self.edit = edit
    }
}

/// Who edited an asset, for the owner's pages ("Edited by Darkroom").
public struct OwnerAssetEdit: Codable, Sendable, Hashable {
    /// The app that made the current version, and its name as the owner registered it.
    public var app: String
    public var appName: String?
    public var version: EditedVersion
    public init(app: String, appName: String?, version: EditedVersion) {
        self.app = app
        self.appName = appName
        self.version = version
    }
}

/// `library.revert` and `owner.revert`: whether there was an edit to undo.
public struct RevertResponse: Codable, Sendable, Hashable {
    public var reverted: Bool
    public init(reverted: Bool) {
        self.reverted = reverted
    }
}
