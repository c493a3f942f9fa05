/// An operation name on the bus, such as `picker.pick`.
///
/// A struct rather than an enum: a service answers an unknown name with `unknownOp` instead of
/// failing to decode the header.
public struct OperationName: WireName {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    // Any principal.
    public static let ping = OperationName(rawValue: "service.ping")
    public static let whoami = OperationName(rawValue: "service.whoami")
    /// Which launch (process) of the client this connection belongs to; answered by the transport.
    public static let hello = OperationName(rawValue: "service.hello")

    // Apps, on the picker.
    public static let pick = OperationName(rawValue: "picker.pick")
    public static let describe = OperationName(rawValue: "provider.describe")
    public static let load = OperationName(rawValue: "provider.load")
    /// A one-time ticket for the picker's delivery socket, where a process on the same host
    /// receives a read-only file descriptor instead of a stream (ipc:// connections only).
    public static let open = OperationName(rawValue: "provider.open")
    /// Grants more chunks to a running stream; fire-and-forget, handled by the transport.
    public static let streamCredit = OperationName(rawValue: "stream.credit")
    /// Ends a running stream early; its request then ends with `cancelled`.
    public static let streamCancel = OperationName(rawValue: "stream.cancel")

    // The owner, on the picker.
    public static let pendingPicks = OperationName(rawValue: "owner.pending")
    public static let listAssets = OperationName(rawValue: "owner.assets")
    public static let outline = OperationName(rawValue: "owner.outline")
    public static let choose = OperationName(rawValue: "owner.choose")
    public static let cancelPick = OperationName(rawValue: "owner.cancel")
    public static let revoke = OperationName(rawValue: "owner.revoke")
    public static let importLibrary = OperationName(rawValue: "owner.import")
    public static let watchedImports = OperationName(rawValue: "owner.watchedImports")
    public static let thumbnail = OperationName(rawValue: "owner.thumbnail")
    public static let assetDetails = OperationName(rawValue: "owner.asset")
    public static let mediaRange = OperationName(rawValue: "owner.media")

    // The owner, on the auth service.
    public static let registerApp = OperationName(rawValue: "owner.apps.register")
    public static let listApps = OperationName(rawValue: "owner.apps.list")

    // Apps, on the auth service.
    public static let authorizationStatus = OperationName(rawValue: "auth.status")
    public static let requestAuthorization = OperationName(rawValue: "auth.request")
    public static let presentLimitedLibraryPicker = OperationName(rawValue: "auth.presentLimitedLibraryPicker")
    public static let watch = OperationName(rawValue: "auth.watch")
    public static let changes = OperationName(rawValue: "auth.changes")

    // The owner, on the auth service (beyond the registry).
    public static let prompts = OperationName(rawValue: "owner.prompts")
    public static let answerPrompt = OperationName(rawValue: "owner.prompts.answer")
    public static let appAccess = OperationName(rawValue: "owner.access.list")
    public static let setAccess = OperationName(rawValue: "owner.access.set")
    /// One app's settings with its whole limited selection (for editing it).
    public static let accessDetail = OperationName(rawValue: "owner.access.get")
    public static let audit = OperationName(rawValue: "owner.audit")
    /// One app's use of the library over a period, counted from the audit trail (the privacy report).
    public static let auditSummary = OperationName(rawValue: "owner.audit.summary")

    // Apps, on the picker: the library (needs authorization).
    public static let fetchAssets = OperationName(rawValue: "library.fetchAssets")
    public static let queryAssets = OperationName(rawValue: "library.query")
    public static let createAsset = OperationName(rawValue: "library.create")
    public static let albums = OperationName(rawValue: "library.albums")
    public static let createAlbum = OperationName(rawValue: "library.createAlbum")
    public static let addToAlbum = OperationName(rawValue: "library.albums.add")
    public static let removeFromAlbum = OperationName(rawValue: "library.albums.remove")
    public static let albumAssets = OperationName(rawValue: "library.albums.assets")
    /// What changed in the library after a token (PHPhotoLibraryChangeObserver after a reconnect).
    public static let libraryChanges = OperationName(rawValue: "library.changes")
    /// Library changes as `event` replies, as they happen.
    public static let watchLibrary = OperationName(rawValue: "library.watch")
    /// Deletes assets once the owner confirms.
    public static let deleteAssets = OperationName(rawValue: "library.delete")
    /// The owner deletes assets (no prompt: the owner is the one asking).
    public static let ownerDelete = OperationName(rawValue: "owner.delete")

    // Apps, on the picker: the image manager (needs authorization).
    public static let requestImage = OperationName(rawValue: "image.request")
    public static let cancelImage = OperationName(rawValue: "image.cancel")
    public static let requestVideo = OperationName(rawValue: "video.request")
    public static let imageProperties = OperationName(rawValue: "library.properties")

    // The owner, on the picker: the cloud tier.
    public static let offload = OperationName(rawValue: "owner.offload")
    public static let restore = OperationName(rawValue: "owner.restore")

    // Services, on the auth service.
    public static let identify = OperationName(rawValue: "auth.identify")
    /// An app's decisions for every library action and its limited selection (the picker's cache fill).
    public static let decisions = OperationName(rawValue: "auth.decisions.get")
    /// A stream of `DecisionsChanged` events: which apps' decisions changed; the picker drops them from its cache.
    public static let followDecisions = OperationName(rawValue: "auth.decisions.follow")
    /// The picker has dropped what a `DecisionsChanged` named; the owner's change is acknowledged after this.
    public static let decisionsApplied = OperationName(rawValue: "auth.decisions.applied")
    /// An app's launch (a process, or a connection that did not say) touched the library; for the
    /// once-per-launch limited-library prompt.
    public static let appLaunched = OperationName(rawValue: "auth.launch")
    public static let assetCreated = OperationName(rawValue: "auth.assetCreated")
    /// Asks the owner to confirm an app's deletion; answers once the owner has.
    public static let confirmDelete = OperationName(rawValue: "auth.confirmDelete")
    /// A batch of reads for the audit trail; no reply.
    public static let recordAudit = OperationName(rawValue: "auth.audit.record")

    // lightbox-portal, acting for desktop apps.
    /// A pick for a desktop app, answered as `picker.pick`.
    public static let portalPick = OperationName(rawValue: "portal.pick")
    /// A load of a desktop app's token, streamed as `provider.load`.
    public static let portalLoad = OperationName(rawValue: "portal.load")
    /// The desktop app closed its request: its pick is withdrawn.
    public static let portalCancel = OperationName(rawValue: "portal.cancel")
    /// `PortalAppRevoked` events as the owner revokes desktop apps; never a final reply.
    public static let portalRevocations = OperationName(rawValue: "portal.revocations")
    /// A desktop app's name, for the owner's pages.
    public static let portalAnnounce = OperationName(rawValue: "portal.apps.announce")

    // Edits with the original kept.
    /// An app saves an edited version of an asset (PHContentEditingOutput).
    public static let editAsset = OperationName(rawValue: "library.edit")
    /// An app returns an asset to its original (PHAssetChangeRequest.revertAssetContentToOriginal).
    public static let revertAsset = OperationName(rawValue: "library.revert")
    /// The adjustment data of an asset's current version (PHContentEditingInput).
    public static let editingInput = OperationName(rawValue: "library.editingInput")
    /// The owner returns an asset to its original.
    public static let ownerRevert = OperationName(rawValue: "owner.revert")
}
