import Foundation
import LightboxProtocol
import LightboxTransport
import Media

/// The library operations apps call on the picker. Every one asks lightbox-auth first and applies
/// the scope it answers; the picker itself decides nothing about permissions.
extension PickerService {
    func fetchAssets(_ request: IncomingRequest, _ responder: Responder) async throws {
        let app = try request.requireApp()
        let identifiers = try request.body(FetchAssetsRequest.self).localIdentifiers
        let decision = try await decide(.read, for: app, on: request, assetCount: identifiers.count)
        let visible = try await visible(identifiers, for: app, in: decision)
        let found = try await catalog.assets(visible)
        // In the order asked, as PHFetchResult keeps it; unknown or unseen identifiers are simply absent.
        let assets = visible.compactMap { found[$0]?.summary }
        auditReporter.record(app: app, operation: .fetch, assetCount: assets.count, outcome: decision.allowed ? .delivered : .refused)
        responder.succeed(FetchAssetsResponse(assets: assets, total: assets.count))
    }

    func queryAssets(_ request: IncomingRequest, _ responder: Responder) async throws {
        let app = try request.requireApp()
        let query = try request.body(AssetQuery.self)
        let decision = try await decide(.read, for: app, on: request)
        switch decision.scope {
        case .none:
            auditReporter.record(app: app, operation: .query, outcome: .refused)
            responder.succeed(FetchAssetsResponse(assets: [], total: 0))
        case .selection, .all:
            let (page, total, next) = try await catalog.assets(matching: query, inSelectionOf: decision.scope == .all ? nil : app)
            auditReporter.record(app: app, operation: .query, assetCount: page.count, outcome: .delivered)
            responder.succeed(FetchAssetsResponse(assets: page, total: total, next: next?.encoded))
        }
    }

    func createAsset(_ request: IncomingRequest, _ responder: Responder) async throws {
        let app = try request.requireApp()
        let body = try request.body(CreateAssetRequest.self)
        guard request.attachments.count == 1, let bytes = request.attachments.first, !bytes.isEmpty else {
            throw LightboxError(.badRequest, "library.create needs the photo or video as one binary frame after the header.")
        }
        let decision = try await decide(.add, for: app, on: request, assetCount: 1)
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
        _ = try await authConnection().request(.assetCreated, AssetCreatedRequest(app: app, asset: identifier), as: Empty.self)
        responder.succeed(CreateAssetResponse(identifier: identifier))
    }

    func listAlbums(_ request: IncomingRequest, _ responder: Responder) async throws {
        let app = try request.requireApp()
        let decision = try await decide(.listAlbums, for: app, on: request)
        guard decision.allowed else { throw LightboxError(.notAuthorized, decision.reason ?? "This app may not list albums.") }
        responder.succeed(AlbumsResponse(albums: try await catalog.albums()))
    }

    func createAlbum(_ request: IncomingRequest, _ responder: Responder) async throws {
        let app = try request.requireApp()
        let title = try request.body(CreateAlbumRequest.self).title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty, title.count <= 200 else { throw LightboxError(.badRequest, "An album needs a title of 1 to 200 characters.") }
        let decision = try await decide(.createAlbum, for: app, on: request)
        guard decision.allowed else { throw LightboxError(.notAuthorized, decision.reason ?? "This app may not create albums.") }
        responder.succeed(AlbumResponse(album: try await catalog.createAlbum(title: title)))
    }

    /// lightbox-auth's decision for this app and action (cached while the picker follows auth), and
    /// its line in the audit trail.
    func decide(_ action: LibraryAction, for app: String, on request: IncomingRequest, assetCount: Int? = nil) async throws -> LibraryDecision {
        let decision: LibraryDecision
        do {
            decision = try await decisions.decision(action, for: app, connection: request.connectionID, auth: try authConnection())
        } catch let error as LightboxError where error.code == .timeout {
            throw LightboxError(.timeout, "lightbox-auth did not answer; library access is unavailable until it is back.")
        }
        auditReporter.record(app: app, operation: .decision(action), assetCount: assetCount ?? 0,
                             outcome: decision.allowed ? .allowed(decision.scope) : .refused(decision.status.rawValue))
        return decision
    }

    /// The identifiers a decision lets an app see, in the order asked.
    func visible(_ identifiers: [String], for app: String, in decision: LibraryDecision) async throws -> [String] {
        switch decision.scope {
        case .all: return identifiers
        case .none: return []
        case .selection:
            let members = try await decisions.selections.members(of: app, among: identifiers)
            return identifiers.filter(members.contains)
        }
    }
}
