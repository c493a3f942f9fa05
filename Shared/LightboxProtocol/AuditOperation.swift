/// What an audit line records, spelled as the wire and the trail spell it: a family, and for some a
/// detail after a colon (`pick:opened`, `request:readWrite`, `status:legacy`). The `operation`
/// filter of `owner.audit` matches a whole name or a family (`pick` finds `pick:opened` and
/// `pick:answered`); `matches(_:)` is that rule, and AuditLog's query its SQL form.
public struct AuditOperation: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The part before the colon, or the whole name.
    public let family: String
    /// The part after the first colon, if any.
    public let detail: String?

    public init(_ family: String, _ detail: String? = nil) {
        self.family = family
        self.detail = detail
    }

    public init(rawValue: String) {
        if let colon = rawValue.firstIndex(of: ":") {
            self.init(String(rawValue[..<colon]), String(rawValue[rawValue.index(after: colon)...]))
        } else {
            self.init(rawValue)
        }
    }

    public var rawValue: String { detail.map { "\(family):\($0)" } ?? family }
    public var description: String { rawValue }

    /// Whether `filter` (a whole name or a family) selects this operation.
    public func matches(_ filter: String) -> Bool {
        rawValue == filter || family == filter
    }
}

// The owner's changes and the decisions lightbox-auth makes.
extension AuditOperation {
    /// The owner's settings for an app (`owner.access.set`).
    public static let settings = AuditOperation("settings")
    /// The limited-library picker: opened for an app that is not limited, or answered.
    public static let expand = AuditOperation("expand")
    /// An asset the app created, joined to its selection.
    public static let create = AuditOperation("create")
    /// The owner's answer to an app's deletion.
    public static let deleteConfirmation = AuditOperation("delete", "confirm")
    /// A grant whose term ended, at a level.
    public static func grantEnded(_ level: AccessLevel) -> AuditOperation { AuditOperation("ended", level.rawValue) }
    /// An app's access reset because it went unused.
    public static let resetUnused = AuditOperation("reset", "unused")

    /// The operations lightbox-auth or the owner write about an app, not the app's own: they do not
    /// count as the app using its access.
    public static let notMadeByApps: [AuditOperation] = [
        .settings, .prompt(.readWrite), .prompt(.addOnly), .deleteConfirmation, .grantEnded(.readWrite), .grantEnded(.addOnly),
        .resetUnused, .ownerRevert, .locationPrompt, .locationSettings,
    ]

    /// A status check at a level, or the legacy one without a level.
    public static func status(_ level: AccessLevel?) -> AuditOperation { AuditOperation("status", level?.rawValue ?? "legacy") }
    /// An app's request for authorization at a level.
    public static func request(_ level: AccessLevel) -> AuditOperation { AuditOperation("request", level.rawValue) }
    /// The owner's answer to an authorization prompt at a level.
    public static func prompt(_ level: AccessLevel) -> AuditOperation { AuditOperation("prompt", level.rawValue) }
    /// A library decision the picker asked for (`read`, `add`, `listAlbums`, …).
    public static func decision(_ action: LibraryAction) -> AuditOperation { AuditOperation(action.rawValue) }
}

// The reads and picks the picker reports.
extension AuditOperation {
    /// A pick's steps: opened by the app, answered by the owner (or cancelled, or timed out).
    public enum PickStep: String, Sendable {
        case opened, answered
    }

    public static func pick(_ step: PickStep) -> AuditOperation { AuditOperation("pick", step.rawValue) }
    public static let describe = AuditOperation("describe")
    public static let load = AuditOperation("load")
    /// A descriptor handed over on the delivery socket (`provider.open`).
    public static let open = AuditOperation("open")
    public static let fetch = AuditOperation("fetch")
    public static let query = AuditOperation("query")
    public static let image = AuditOperation("image")
    public static let video = AuditOperation("video")
    public static let properties = AuditOperation("properties")
    public static let changes = AuditOperation("changes")
    public static let delete = AuditOperation("delete")
    public static let albumAdd = AuditOperation("album", "add")
    public static let albumRemove = AuditOperation("album", "remove")
    public static let albumAssets = AuditOperation("album", "assets")
    /// An app saved an edited version, or returned an asset to its original.
    public static let edit = AuditOperation("edit")
    public static let revert = AuditOperation("revert")
    /// The owner returned an asset an app had edited to its original (written under that app).
    public static let ownerRevert = AuditOperation("revert", "owner")
}

// Kinds of lines, for counting the trail (the privacy report) without reading its words.
extension AuditOperation {
    /// Reads that hand an app an asset's content; their lines name the asset.
    public static let assetReads: [AuditOperation] = [.load, .open, .image, .video, .properties]
    /// Lines the owner's own actions write under an app's name: not the app's use of the library.
    public static let ownerActions: [AuditOperation] = [.settings, .prompt(.readWrite), .prompt(.addOnly), .deleteConfirmation,
                                                            .ownerRevert]
}
