import Foundation
import LightboxProtocol
import LightboxTransport
import Logging
import Media

/// The library as apps with library access see it: fetches, queries and properties, adding,
/// albums, changes and deletion. Every operation asks lightbox-auth first (`LibraryAccess`) and
/// shows only what the app's `LibraryView` lets it see; the picker itself decides nothing about
/// permissions.
struct LibraryFeature: Sendable {
    let catalog: Catalog
    let access: LibraryAccess
    let changeFeed: LibraryChangeFeed
    let importer: LibraryImporter
    let auth: AuthLink
    let logger: Logger

    func register(in table: inout OperationTable) {
        table.on(Operations.fetchAssets) { try await fetchAssets($0, $1, &$2) }
        table.on(Operations.queryAssets) { try await queryAssets($0, $1, &$2) }
        table.on(Operations.imageProperties) { try await imageProperties($0, $1, &$2) }
        table.on(Operations.createAsset) { try await createAsset($0, $1, &$2) }
        table.on(Operations.albums) { app, _, context in try await listAlbums(app, &context) }
        table.on(Operations.createAlbum) { try await createAlbum($0, $1, &$2) }
        table.on(Operations.addToAlbum) { try await changeAlbumMembership($0, $1, adding: true, &$2) }
        table.on(Operations.removeFromAlbum) { try await changeAlbumMembership($0, $1, adding: false, &$2) }
        table.on(Operations.albumAssets) { try await albumAssets($0, $1, &$2) }
        table.on(Operations.libraryChanges) { try await libraryChanges($0, $1, &$2) }
        table.later(Operations.watchLibrary) { try await watchLibrary($0, $1, &$2, $3) }
        table.later(Operations.deleteAssets) { try await deleteAssets($0, $1, &$2, $3) }
    }

    func fetchAssets(_ app: AppID, _ body: FetchAssetsRequest, _ context: inout RequestContext) async throws -> FetchAssetsResponse {
        let identifiers = body.localIdentifiers
        let view = try await access.view(.read, for: app, on: context, assetCount: identifiers.count)
        let visible = try await view.visible(identifiers)
        let found = try await catalog.assets(visible)
        // In the order asked, as PHFetchResult keeps it; unknown or unseen identifiers are simply absent.
        let assets = visible.compactMap { found[$0]?.summary }
        context.audit(view.isAllowed ? .delivered : .refused, assetCount: assets.count)
        return FetchAssetsResponse(assets: assets, total: assets.count)
    }

    func queryAssets(_ app: AppID, _ query: AssetQuery, _ context: inout RequestContext) async throws -> FetchAssetsResponse {
        let view = try await access.view(.read, for: app, on: context)
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
        let decision = try await access.decide(.add, for: app, on: context, assetCount: 1)
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
        _ = try await auth.connected().request(.assetCreated, AssetCreatedRequest(app: app.rawValue, asset: identifier), as: Empty.self)
        return CreateAssetResponse(identifier: identifier)
    }

    func listAlbums(_ app: AppID, _ context: inout RequestContext) async throws -> AlbumsResponse {
        let decision = try await access.decide(.listAlbums, for: app, on: context)
        guard decision.allowed else { throw LightboxError(.notAuthorized, decision.reason ?? "This app may not list albums.") }
        return AlbumsResponse(albums: try await catalog.albums())
    }

    func createAlbum(_ app: AppID, _ body: CreateAlbumRequest, _ context: inout RequestContext) async throws -> AlbumResponse {
        let title = body.title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty, title.count <= 200 else { throw LightboxError(.badRequest, "An album needs a title of 1 to 200 characters.") }
        let decision = try await access.decide(.createAlbum, for: app, on: context)
        guard decision.allowed else { throw LightboxError(.notAuthorized, decision.reason ?? "This app may not create albums.") }
        return AlbumResponse(album: try await catalog.createAlbum(title: title))
    }

    func imageProperties(_ app: AppID, _ body: AssetRequest, _ context: inout RequestContext) async throws -> ImagePropertiesResponse {
        let (asset, removal) = try await access.visible(body.asset, app: app, context: context)
        context.audit(.delivered, assetCount: 1, asset: asset.identifier)
        return ImagePropertiesResponse(asset: asset.identifier, properties: removal.applied(to: asset.imageProperties))
    }
}
