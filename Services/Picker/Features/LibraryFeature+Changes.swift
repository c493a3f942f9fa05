import Foundation
import LightboxProtocol
import LightboxTransport

/// PHPhotoLibraryChangeObserver for apps, and albums that hold assets. Every answer is filtered by
/// the app's decision from lightbox-auth: all when authorized, its selection when limited, nothing
/// otherwise; albums only with full access.
extension LibraryFeature {
    static let maximumChangesPerReply = 1000

    func libraryChanges(_ app: AppID, _ body: LibraryChangesRequest, _ context: inout RequestContext) async throws -> LibraryChangesResponse {
        let view = try await access.view(.read, for: app, on: context)
        let since = max(body.since ?? 0, 0)
        let limit = min(max(body.limit ?? Self.maximumChangesPerReply, 1), Self.maximumChangesPerReply)
        let entries = try await catalog.storage.changes(after: since, limit: limit)
        let latest = try await catalog.storage.latestChangeToken()
        let changes = try await view.changes(in: entries)
        let token = entries.last?.token ?? max(since, latest)
        context.audit(.delivered, assetCount: changes.count)
        return LibraryChangesResponse(changes: changes, token: token, hasMore: entries.count == limit)
    }

    /// Registers the watch first, then replays what came after `since`: a change in both arrives
    /// twice with the same token, and clients drop tokens they have seen.
    func watchLibrary(_ app: AppID, _ body: LibraryChangesRequest, _ context: inout RequestContext, _ reply: LaterReply<Empty>) async throws {
        let since = body.since
        let view = try await access.view(.read, for: app, on: context)
        let responder = reply.responder
        await changeFeed.add(LibraryChangeFeed.Watcher(responder: responder, origin: context.request.origin), for: app.rawValue)
        guard let since else { return }
        var after = since
        while true {
            let start = after
            let entries = try await catalog.storage.changes(after: start, limit: Self.maximumChangesPerReply)
            for change in try await view.changes(in: entries) { responder.event(change) }
            guard entries.count == Self.maximumChangesPerReply, let last = entries.last else { return }
            after = last.token
        }
    }

    func changeAlbumMembership(_ app: AppID, _ body: AlbumMembershipRequest, adding isAdding: Bool,
                               _ context: inout RequestContext) async throws -> Empty {
        guard !body.assets.isEmpty, body.assets.count <= 1000 else {
            throw LightboxError(.badRequest, "Name 1 to 1000 assets to add to or remove from an album.")
        }
        let decision = try await access.decide(.createAlbum, for: app, on: context, assetCount: body.assets.count)
        guard decision.allowed else { throw LightboxError(.notAuthorized, decision.reason ?? "This app may not change albums.") }
        guard try await catalog.album(body.album) != nil else {
            throw LightboxError(.notFound, "No album \(body.album) in the library.", details: ["album": body.album])
        }
        let found = try await catalog.assets(body.assets)
        if let missing = body.assets.first(where: { found[$0] == nil }) {
            throw LightboxError(.notFound, "No asset \(missing) in the library.", details: ["asset": missing])
        }
        let changed = try await catalog.setMembership(of: body.assets, in: body.album, isAdding: isAdding)
        context.audit(.changed, assetCount: changed)
        return Empty()
    }

    func albumAssets(_ app: AppID, _ body: AlbumAssetsRequest, _ context: inout RequestContext) async throws -> FetchAssetsResponse {
        let decision = try await access.decide(.listAlbums, for: app, on: context)
        guard decision.allowed else { throw LightboxError(.notAuthorized, decision.reason ?? "This app may not see albums.") }
        guard try await catalog.album(body.album) != nil else {
            throw LightboxError(.notFound, "No album \(body.album) in the library.", details: ["album": body.album])
        }
        let limit = min(max(body.limit ?? 100, 1), ListAssetsRequest.maximumLimit)
        let cursor = try body.after.map { text throws(LightboxError) in try LibraryCursor(decoding: text) }
        let page = try await catalog.albumPage(body.album, limit: limit, after: cursor)
        context.audit(.delivered, assetCount: page.assets.count)
        return FetchAssetsResponse(assets: page.assets, total: page.assets.count, next: page.next?.encoded)
    }
}
