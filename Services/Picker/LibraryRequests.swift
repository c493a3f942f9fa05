import Foundation
import LightboxProtocol
import LightboxTransport
import Media

/// The library operations apps call on the picker. Every one asks lightbox-auth first and applies
/// the scope it answers; the picker itself decides nothing about permissions.
extension PickerService {
    func fetchAssets(_ app: AppID, _ body: FetchAssetsRequest, _ context: inout RequestContext) async throws -> FetchAssetsResponse {
        let identifiers = body.localIdentifiers
        let view = try await view(.read, for: app, on: context, assetCount: identifiers.count)
        let visible = try await view.visible(identifiers)
        let found = try await catalog.assets(visible)
        // In the order asked, as PHFetchResult keeps it; unknown or unseen identifiers are simply absent.
        let assets = visible.compactMap { found[$0]?.summary }
        context.audit(view.isAllowed ? .delivered : .refused, assetCount: assets.count)
        return FetchAssetsResponse(assets: assets, total: assets.count)
    }

    func queryAssets(_ app: AppID, _ query: AssetQuery, _ context: inout RequestContext) async throws -> FetchAssetsResponse {
        let view = try await view(.read, for: app, on: context)
        guard !view.seesNothing else {
            context.audit(.refused)
            return FetchAssetsResponse(assets: [], total: 0)
        }
        let (page, total, next) = try await catalog.assets(matching: query, inSelectionOf: view.selectionToJoin)
        context.audit(.delivered, assetCount: page.count)
        return FetchAssetsResponse(assets: page, total: total, next: next?.encoded)
    }

    func createAsset(_ app: AppID, _ body: CreateAssetRequest, _ context: inout RequestContext) async throws -> CreateAssetResponse {
        guard context.attachments.count == 1, let bytes = context.attachments.first, !bytes.isEmpty else {
            throw LightboxError(.badRequest, "library.create needs the photo or video as one binary frame after the header.")
        }
        let decision = try await decide(.add, for: app, on: context, assetCount: 1)
        guard decision.allowed else {
            throw LightboxError(.notAuthorized, decision.reason ?? "This app may not add to the library.")
        }
        let incoming = catalog.originals.deletingLastPathComponent().appendingPathComponent("incoming")
        try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
        let file = incoming.appendingPathComponent(UUID().uuidString)
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        // Always a new asset under a safe name, even for bytes the library already holds.
        let name = SafeFileName.make(body.fileName ?? "", fallback: "\(app)-\(Int(Date().timeIntervalSince1970))")
        let identifier: String
        do {
            identifier = try await importer.createAsset(from: file, fileName: name)
        } catch let error as MediaError {
            throw error.during(.acceptAddedFile)
        }
        _ = try await authConnection().request(.assetCreated, AssetCreatedRequest(app: app.rawValue, asset: identifier), as: Empty.self)
        return CreateAssetResponse(identifier: identifier)
    }

    func listAlbums(_ app: AppID, _ context: inout RequestContext) async throws -> AlbumsResponse {
        let decision = try await decide(.listAlbums, for: app, on: context)
        guard decision.allowed else { throw LightboxError(.notAuthorized, decision.reason ?? "This app may not list albums.") }
        return AlbumsResponse(albums: try await catalog.albums())
    }

    func createAlbum(_ app: AppID, _ body: CreateAlbumRequest, _ context: inout RequestContext) async throws -> AlbumResponse {
        let title = body.title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty, title.count <= 200 else { throw LightboxError(.badRequest, "An album needs a title of 1 to 200 characters.") }
        let decision = try await decide(.createAlbum, for: app, on: context)
        guard decision.allowed else { throw LightboxError(.notAuthorized, decision.reason ?? "This app may not create albums.") }
        return AlbumResponse(album: try await catalog.createAlbum(title: title))
    }

    /// lightbox-auth's decision for this app and action (cached while the picker follows auth), and
    /// its line in the audit trail.
    func decide(_ action: LibraryAction, for app: AppID, on context: RequestContext, assetCount: Int? = nil) async throws -> LibraryDecision {
        try await decide(action, for: app.rawValue, connection: context.request.connectionID, assetCount: assetCount)
    }

    func decide(_ action: LibraryAction, for app: String, connection: String, assetCount: Int? = nil) async throws -> LibraryDecision {
        let decision: LibraryDecision
        do {
            decision = try await decisions.decision(action, for: app, connection: connection, auth: try authConnection())
        } catch let error as LightboxError where error.code == .timeout {
            throw LightboxError(.timeout, "lightbox-auth did not answer; library access is unavailable until it is back.")
        }
        auditReporter.record(app: app, operation: .decision(action), assetCount: assetCount ?? 0,
                             outcome: decision.allowed ? .allowed(decision.scope) : .refused(decision.status.rawValue))
        return decision
    }

    /// What `app` may see for `action`, as auth decided it (and audited).
    func view(_ action: LibraryAction, for app: AppID, on context: RequestContext, assetCount: Int? = nil) async throws -> LibraryView {
        LibraryView(app: app.rawValue, decision: try await decide(action, for: app, on: context, assetCount: assetCount),
                    selections: decisions.selections)
    }
}
