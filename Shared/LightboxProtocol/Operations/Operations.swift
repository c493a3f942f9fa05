/// Every operation of the protocol, declared once. The services build their tables from these,
/// and a test holds PROTOCOL.md, the Python client and the golden fixtures to them.
public enum Operations {
    // Any principal, on both services.
    public static let ping = Operation<Principal, Empty, ServiceIdentity>(.ping)
    public static let whoami = Operation<Principal, Empty, ServiceIdentity>(.whoami)
    /// Answered by the transport on the connection it came on, which then belongs to that launch.
    public static let hello = Operation<Principal, Hello, Empty>(.hello)

    // Apps, on the picker.
    public static let pick = Operation<AppID, PickRequest, PickResponse>(.pick, audit: .pick(.opened))
    public static let describe = Operation<AppID, TokenRequest, ProviderDescription>(.describe, audit: .describe)
    public static let load = Operation<AppID, LoadRequest, StreamCompletion>(.load, audit: .load)
    /// Audited when the descriptor is handed over on the delivery socket, not when the ticket is made.
    public static let open = Operation<AppID, OpenRequest, FileTicket>(.open)
    /// Stream control: handled by the transport on the connection that runs the stream; no reply.
    public static let streamCredit = Operation<AppID, StreamCredit, Empty>(.streamCredit)
    public static let streamCancel = Operation<AppID, StreamCancel, Empty>(.streamCancel)

    // Apps, on the picker: the library (needs authorization).
    public static let fetchAssets = Operation<AppID, FetchAssetsRequest, FetchAssetsResponse>(.fetchAssets, audit: .fetch)
    public static let queryAssets = Operation<AppID, AssetQuery, FetchAssetsResponse>(.queryAssets, audit: .query)
    /// Audited by lightbox-auth, which joins the new asset to a limited app's selection.
    public static let createAsset = Operation<AppID, CreateAssetRequest, CreateAssetResponse>(.createAsset)
    public static let albums = Operation<AppID, Empty, AlbumsResponse>(.albums)
    public static let createAlbum = Operation<AppID, CreateAlbumRequest, AlbumResponse>(.createAlbum)
    public static let addToAlbum = Operation<AppID, AlbumMembershipRequest, Empty>(.addToAlbum, audit: .albumAdd)
    public static let removeFromAlbum = Operation<AppID, AlbumMembershipRequest, Empty>(.removeFromAlbum, audit: .albumRemove)
    public static let albumAssets = Operation<AppID, AlbumAssetsRequest, FetchAssetsResponse>(.albumAssets, audit: .albumAssets)
    public static let libraryChanges = Operation<AppID, LibraryChangesRequest, LibraryChangesResponse>(.libraryChanges, audit: .changes)
    /// `LibraryChange` events as they happen; never a final reply.
    public static let watchLibrary = Operation<AppID, LibraryChangesRequest, Empty>(.watchLibrary)
    public static let deleteAssets = Operation<AppID, DeleteAssetsRequest, DeleteAssetsResponse>(.deleteAssets, audit: .delete)

    // Apps, on the picker: the image manager (needs authorization).
    public static let requestImage = Operation<AppID, ImageRequest, ImageResultInfo>(.requestImage, audit: .image)
    public static let cancelImage = Operation<AppID, CancelImageRequest, Empty>(.cancelImage)
    /// A credit stream as `provider.load`, or this reply when the movie is in the cloud.
    public static let requestVideo = Operation<AppID, VideoRequest, VideoResultInfo>(.requestVideo, audit: .video)
    public static let imageProperties = Operation<AppID, AssetRequest, ImagePropertiesResponse>(.imageProperties, audit: .properties)

    // Apps, on the picker: edits with the original kept (needs read-write access).
    /// The edited photo or movie follows the header as one binary frame.
    public static let editAsset = Operation<AppID, EditAssetRequest, EditingInput>(.editAsset, audit: .edit)
    public static let revertAsset = Operation<AppID, AssetRequest, RevertResponse>(.revertAsset, audit: .revert)
    public static let editingInput = Operation<AppID, AssetRequest, EditingInput>(.editingInput, audit: .properties)

    // The owner, on the picker.
    public static let pendingPicks = Operation<Owner, PendingPicksRequest, PendingPicksResponse>(.pendingPicks)
    public static let listAssets = Operation<Owner, ListAssetsRequest, ListAssetsResponse>(.listAssets)
    /// What the pick sheet browses by: albums, the span of years, whether places are named.
    public static let outline = Operation<Owner, Empty, LibraryOutline>(.outline)
    public static let thumbnail = Operation<Owner, ThumbnailRequest, ThumbnailInfo>(.thumbnail)
    public static let assetDetails = Operation<Owner, AssetRequest, AssetDetails>(.assetDetails)
    /// A byte range of an asset's playable movie or original, for the owner's preview.
    public static let mediaRange = Operation<Owner, MediaRangeRequest, MediaRangeInfo>(.mediaRange)
    public static let choose = Operation<Owner, ChooseRequest, ChooseResponse>(.choose)
    public static let cancelPick = Operation<Owner, CancelPickRequest, Empty>(.cancelPick)
    public static let revoke = Operation<Owner, RevokeRequest, RevokeResponse>(.revoke)
    public static let importLibrary = Operation<Owner, ImportRequest, ImportSummary>(.importLibrary)
    /// The watched folders' imports as they go: `event` replies of `ImportProgress`; never a final reply.
    public static let watchedImports = Operation<Owner, Empty, Empty>(.watchedImports)
    public static let ownerDelete = Operation<Owner, DeleteAssetsRequest, DeleteAssetsResponse>(.ownerDelete)
    public static let offload = Operation<Owner, AssetRequest, Empty>(.offload)
    public static let restore = Operation<Owner, AssetRequest, Empty>(.restore)
    /// Audited under the app whose edit it undid.
    public static let ownerRevert = Operation<Owner, AssetRequest, RevertResponse>(.ownerRevert, audit: .ownerRevert)

    // Apps, on the auth service.
    /// Audited as `status:LEVEL`, or `status:legacy` without a level.
    public static let authorizationStatus = Operation<AppID, StatusRequest, StatusResponse>(.authorizationStatus, audit: AuditOperation("status"))
    /// Audited as `request:LEVEL`; the owner's answer as `prompt:LEVEL`.
    public static let requestAuthorization = Operation<AppID, AuthorizationRequest, StatusResponse>(.requestAuthorization, audit: AuditOperation("request"))
    public static let presentLimitedLibraryPicker = Operation<AppID, Empty, LimitedLibraryPickerResponse>(.presentLimitedLibraryPicker, audit: .expand)
    /// `AuthorizationChange` events as they happen; never a final reply.
    public static let watch = Operation<AppID, ChangesRequest, Empty>(.watch)
    public static let changes = Operation<AppID, ChangesRequest, ChangesResponse>(.changes)

    // The owner, on the auth service. Changes are audited in the transaction that makes them.
    public static let registerApp = Operation<Owner, RegisterAppRequest, AppManifestResponse>(.registerApp)
    public static let listApps = Operation<Owner, Empty, AppListResponse>(.listApps)
    public static let prompts = Operation<Owner, PromptsRequest, PromptsResponse>(.prompts)
    /// Audited as `prompt:LEVEL`, `expand` or `delete:confirm` by the prompt's kind.
    public static let answerPrompt = Operation<Owner, AnswerPromptRequest, Empty>(.answerPrompt)
    public static let appAccess = Operation<Owner, Empty, AppAccessListResponse>(.appAccess)
    public static let setAccess = Operation<Owner, SetAccessRequest, SetAccessResponse>(.setAccess, audit: .settings)
    public static let accessDetail = Operation<Owner, AccessDetailRequest, AccessDetail>(.accessDetail)
    public static let audit = Operation<Owner, AuditRequest, AuditResponse>(.audit)
    public static let auditSummary = Operation<Owner, AuditSummaryRequest, AuditSummary>(.auditSummary)

    // Services, on the auth service.
    public static let identify = Operation<ServiceID, IdentifyRequest, AppManifestResponse>(.identify)
    public static let decisions = Operation<ServiceID, AppDecisionsRequest, AppDecisions>(.decisions)
    /// `DecisionsChanged` events while the follower runs; never a final reply.
    public static let followDecisions = Operation<ServiceID, Empty, Empty>(.followDecisions)
    public static let decisionsApplied = Operation<ServiceID, DecisionsApplied, Empty>(.decisionsApplied)
    public static let appLaunched = Operation<ServiceID, AppLaunch, Empty>(.appLaunched)
    /// Audited for the app that created the asset.
    public static let assetCreated = Operation<ServiceID, AssetCreatedRequest, Empty>(.assetCreated, audit: .create)
    /// Audited for the app whose deletion the owner answered.
    public static let confirmDelete = Operation<ServiceID, DeleteConfirmationRequest, DeleteConfirmation>(.confirmDelete, audit: .deleteConfirmation)
    public static let recordAudit = Operation<ServiceID, AuditRecordRequest, Empty>(.recordAudit)

    // lightbox-portal, on the picker: picks and loads for the desktop apps it names, filed and
    // audited under `portal:<app id>`.
    public static let portalPick = Operation<Portal, PortalPickRequest, PickResponse>(.portalPick, audit: .pick(.opened))
    public static let portalLoad = Operation<Portal, PortalLoadRequest, StreamCompletion>(.portalLoad, audit: .load)
    /// Audited as the pick's answer (`pick:answered`, `cancelled`).
    public static let portalCancel = Operation<Portal, PortalCancelRequest, Empty>(.portalCancel)
    /// `PortalAppRevoked` events while the portal is connected; never a final reply.
    public static let portalRevocations = Operation<Portal, Empty, Empty>(.portalRevocations)

    // lightbox-portal, on the auth service.
    public static let portalAnnounce = Operation<Portal, PortalAppAnnouncement, Empty>(.portalAnnounce)

    /// lightbox-picker's operations, stream control included.
    public static let picker: [OperationDeclaration] = [
        ping.declaration, whoami.declaration, hello.declaration,
        pick.declaration, describe.declaration, load.declaration, open.declaration, streamCredit.declaration, streamCancel.declaration,
        fetchAssets.declaration, queryAssets.declaration, createAsset.declaration, albums.declaration, createAlbum.declaration,
        addToAlbum.declaration, removeFromAlbum.declaration, albumAssets.declaration, libraryChanges.declaration,
        watchLibrary.declaration, deleteAssets.declaration,
        requestImage.declaration, cancelImage.declaration, requestVideo.declaration, imageProperties.declaration,
        pendingPicks.declaration, listAssets.declaration, outline.declaration, thumbnail.declaration, assetDetails.declaration, mediaRange.declaration,
        choose.declaration,
        cancelPick.declaration, revoke.declaration, importLibrary.declaration, ownerDelete.declaration, offload.declaration,
        restore.declaration, watchedImports.declaration,
        portalPick.declaration, portalLoad.declaration, portalCancel.declaration, portalRevocations.declaration,
        editAsset.declaration, revertAsset.declaration, editingInput.declaration, ownerRevert.declaration,
    ]

    /// lightbox-auth's operations.
    public static let auth: [OperationDeclaration] = [
        ping.declaration, whoami.declaration, hello.declaration,
        authorizationStatus.declaration, requestAuthorization.declaration, presentLimitedLibraryPicker.declaration,
        watch.declaration, changes.declaration,
        registerApp.declaration, listApps.declaration, prompts.declaration, answerPrompt.declaration, appAccess.declaration,
        setAccess.declaration, accessDetail.declaration, audit.declaration, auditSummary.declaration,
        identify.declaration, decisions.declaration, followDecisions.declaration, decisionsApplied.declaration,
        appLaunched.declaration, assetCreated.declaration, confirmDelete.declaration, recordAudit.declaration,
        portalAnnounce.declaration,
    ]

    /// Operations the transport answers itself, on the connection that runs the stream.
    public static let streamControl: Set<OperationName> = [.streamCredit, .streamCancel]
    /// Operations the transport answers itself for the connection they came on (not a service's table).
    public static let connectionControl: Set<OperationName> = streamControl.union([.hello])
}
