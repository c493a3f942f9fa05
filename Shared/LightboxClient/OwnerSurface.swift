import Foundation
import LightboxProtocol
import LightboxTransport

/// The owner's side of the picker: see pending picks, choose or cancel, revoke tokens, import media.
public struct OwnerSurface: Sendable {
    let picker: any PickerConnection

    /// `picker`: one picker's connection, or a `FailoverConnection` over the pickers of one library.
    public init(picker: any PickerConnection) {
        self.picker = picker
    }

    /// The picks waiting for the owner; waits up to `wait` for one to arrive when none is pending.
    public func pendingPicks(waitingUpTo wait: Duration = .zero) async throws -> [PendingPick] {
        let reply = try await picker.request(
            .pendingPicks, PendingPicksRequest(waitMs: Int(wait.milliseconds)), as: PendingPicksResponse.self,
            timeout: wait + .seconds(10))
        return reply.picks
    }

    /// One page of the catalog, newest first: only what a pick's filter (or `filter`) lets through.
    /// Pass the reply's `next` as `after` for the following page.
    public func assetPage(pick: String? = nil, filter: PickerFilter? = nil, limit: Int = ListAssetsRequest.defaultLimit,
                          after: String? = nil) async throws -> ListAssetsResponse {
        try await assetPage(ListAssetsRequest(pick: pick, filter: filter, limit: limit, after: after))
    }

    /// One page as `request` asks: a pick's, searched, of an album, from a date (the sheet's browsing).
    public func assetPage(_ request: ListAssetsRequest) async throws -> ListAssetsResponse {
        try await picker.request(.listAssets, request, as: ListAssetsResponse.self)
    }

    /// What the owner's sheet browses by: the albums, the span of years, whether places are named.
    public func outline() async throws -> LibraryOutline {
        try await picker.request(.outline, Empty(), as: LibraryOutline.self)
    }

    /// Every asset a pick's filter lets through, page by page (for scripts; a surface shows pages).
    public func assets(for pick: String? = nil) async throws -> [AssetSummary] {
        var assets: [AssetSummary] = []
        var cursor: String?
        repeat {
            let page = try await assetPage(pick: pick, limit: ListAssetsRequest.maximumLimit, after: cursor)
            assets += page.assets
            cursor = page.next
        } while cursor != nil
        return assets
    }

    /// A cached JPEG thumbnail of any asset, at most `side` pixels on its longer side.
    public func thumbnail(of asset: String, side: Int = ThumbnailRequest.defaultSide) async throws -> (info: ThumbnailInfo, jpeg: Data) {
        for try await reply in picker.send(.thumbnail, ThumbnailRequest(asset: asset, side: side)) where reply.status == .ok {
            guard let jpeg = reply.attachments.first else {
                throw LightboxError(.internal, "owner.thumbnail answered without the image frame.")
            }
            return (try reply.body(ThumbnailInfo.self), jpeg)
        }
        throw LightboxError(.internal, "owner.thumbnail ended without a final reply.")
    }

    /// Up to `length` bytes from `offset` of an asset's playable movie or original, and the file's size.
    public func mediaRange(of asset: String, _ part: MediaRangePart, offset: Int64, length: Int) async throws -> (info: MediaRangeInfo, bytes: Data) {
        // The first request for a movie may wait while it is transcoded.
        for try await reply in picker.send(.mediaRange, MediaRangeRequest(asset: asset, part: part, offset: offset, length: length),
                                           timeout: .seconds(300))
        where reply.status == .ok {
            return (try reply.body(MediaRangeInfo.self), reply.attachments.first ?? Data())
        }
        throw LightboxError(.internal, "owner.media ended without a final reply.")
    }

    /// One asset's summary and the image properties read at import.
    public func details(of asset: String) async throws -> AssetDetails {
        try await picker.request(.assetDetails, AssetRequest(asset: asset), as: AssetDetails.self)
    }

    /// Completes a pick; `stripMetadata` removes location or all metadata from what the app gets,
    /// `location` answers the pick's location request (none when absent; never more than asked).
    @discardableResult
    public func choose(_ assets: [String], for pick: String, stripMetadata: MetadataStripping? = nil,
                       location: LocationAccess? = nil) async throws -> Int {
        try await picker.request(.choose, ChooseRequest(pick: pick, assets: assets, stripMetadata: stripMetadata, location: location),
                                 as: ChooseResponse.self).delivered
    }

    /// Moves an asset's original to the cloud tier (apps then see it as cloud-only).
    public func offload(_ asset: String) async throws {
        _ = try await picker.request(.offload, AssetRequest(asset: asset), as: Empty.self)
    }

    /// Brings an asset's original back from the cloud tier.
    public func restore(_ asset: String) async throws {
        _ = try await picker.request(.restore, AssetRequest(asset: asset), as: Empty.self)
    }

    /// Returns an asset an app edited to its original; false when it had no edit.
    @discardableResult
    public func revert(_ asset: String) async throws -> Bool {
        try await picker.request(.ownerRevert, AssetRequest(asset: asset), as: RevertResponse.self).reverted
    }

    /// Deletes assets from the library at once (their provider tokens go with them).
    @discardableResult
    public func delete(_ assets: [String]) async throws -> [String] {
        try await picker.request(.ownerDelete, DeleteAssetsRequest(assets: assets), as: DeleteAssetsResponse.self).deleted
    }

    public func cancel(_ pick: String) async throws {
        _ = try await picker.request(.cancelPick, CancelPickRequest(pick: pick), as: Empty.self)
    }

    public func revoke(token: String) async throws -> Int {
        try await picker.request(.revoke, RevokeRequest(token: token), as: RevokeResponse.self).revoked
    }

    public func revokeAll(of app: String) async throws -> Int {
        try await picker.request(.revoke, RevokeRequest(app: app), as: RevokeResponse.self).revoked
    }

    /// Imports a folder (the picker reads it: give a path the picker's machine can see).
    /// The imports of the folders the picker watches (`lightbox-picker --watch`), as they go: the
    /// running one's progress at once, then every step (at most ten a second, and the last). Ends
    /// only with the connection (a restarted picker has forgotten the request: follow again).
    public func watchedImports() -> AsyncThrowingStream<ImportProgress, Error> {
        let picker = self.picker
        let before = picker.disconnections
        let replies = picker.send(.watchedImports, Empty(), timeout: .seconds(365 * 86_400))
        return AsyncThrowingStream { continuation in
            let task = Task {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        do {
                            for try await reply in replies where reply.status == .event {
                                continuation.yield(try reply.body(ImportProgress.self))
                            }
                            continuation.finish()
                        } catch {
                            continuation.finish(throwing: error)
                        }
                    }
                    group.addTask {
                        while picker.disconnections == before, !Task.isCancelled { try? await Task.sleep(for: .seconds(1)) }
                        continuation.finish(throwing: LightboxError(.cancelled, "The connection to lightbox-picker was lost; follow its imports again."))
                    }
                    await group.next()
                    group.cancelAll()
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    public func importLibrary(
        at path: String, progress: @Sendable (ImportProgress) -> Void = { _ in }
    ) async throws -> ImportSummary {
        for try await reply in picker.send(.importLibrary, ImportRequest(path: path), timeout: .seconds(120)) {
            switch reply.status {
            case .progress:
                if let step = try? reply.body(ImportProgress.self) { progress(step) }
            case .ok:
                return try reply.body(ImportSummary.self)
            default:
                continue
            }
        }
        throw LightboxError(.internal, "The import ended without a final reply.")
    }
}

/// The owner's side of the auth service: the app registry.
public struct AppRegistryClient: Sendable {
    let auth: DealerConnection

    public init(auth: DealerConnection) {
        self.auth = auth
    }

    @discardableResult
    public func register(_ manifest: AppManifest) async throws -> AppManifest {
        try await auth.request(.registerApp, RegisterAppRequest(manifest: manifest), as: AppManifestResponse.self).manifest
    }

    public func apps() async throws -> [AppManifest] {
        try await auth.request(.listApps, Empty(), as: AppListResponse.self).apps
    }
}
