import Foundation
import LightboxProtocol
import LightboxTransport
import Logging
import Media
import Synchronization

/// Item providers: what a pick's tokens give the app that holds them — a description, the bytes
/// as a credit stream (`provider.load`) or, on this host, a read-only file descriptor
/// (`provider.open`) — and the owner's revocation of them.
struct ProviderFeature: Sendable {
    let tokens: ProviderTokenStore
    let catalog: Catalog
    let renditions: RenditionStore
    let cloud: CloudTier
    let streamer: AssetStreamer
    let fileTickets: FileTickets
    /// The delivery socket's path while it is open (beside an ipc endpoint); nil over tcp.
    let deliverySocketPath: @Sendable () -> String?
    let renderPool: BlockingWorkPool
    /// Told when the owner revokes a desktop app, so lightbox-portal removes what it delivered.
    let portalRevocations: PortalRevocations
    let logger: Logger

    func register(in table: inout OperationTable) {
        table.on(Operations.describe) { try await describe($0, $1, &$2) }
        table.streaming(Operations.load) { try await load($0, $1, &$2) }
        table.on(Operations.open) { try await open($0, $1, &$2) }
        table.on(Operations.revoke) { _, body, _ in try await revoke(body) }
    }

    func describe(_ app: AppID, _ body: TokenRequest, _ context: inout RequestContext) async throws -> ProviderDescription {
        let (capability, asset) = try await redeemed(body.token, by: app, for: context.request.op)
        let properties = Representations.removal(capability.removal, for: asset).applied(to: asset.imageProperties)
        let fileSize = try await deliveredFileSize(of: asset, capability)
        context.audit(.ok, assetCount: 1, asset: asset.identifier)
        return ProviderDescription(registeredTypeIdentifiers: capability.types, suggestedName: asset.suggestedName,
                                   fileSize: fileSize, properties: asset.basicProperties, imageProperties: properties)
    }

    func load(_ app: AppID, _ body: LoadRequest, _ context: inout RequestContext) async throws -> Streamed<StreamCompletion> {
        let loadable = try await loadable(body.token, as: body.type, by: app, context: context)
        let responder = context.responder
        let outcome: StreamOutcome
        if RenditionStore.deliversOriginal(loadable.asset, as: loadable.representation, removing: loadable.removal) {
            outcome = try await streamer.streamOriginal(loadable.asset, as: loadable.representation, credit: body.credit,
                                                        chunkSize: body.chunkSize, app: app, responder: responder)
        } else {
            outcome = try await renditions.withDeliverableFile(for: loadable.asset, as: loadable.representation,
                                                               removing: loadable.removal, progress: { responder.progress($0) }) { file in
                try await streamer.stream(loadable.asset, file: file, as: loadable.representation, credit: body.credit, chunkSize: body.chunkSize,
                                          app: app, responder: responder)
            }
        }
        context.audit(AuditFacts(outcome, asset: loadable.asset.identifier))
        return .stream(outcome)
    }

    /// What a token's load delivers: its asset (the paired movie for a Live Photo's movie type)
    /// with its original local, the representation asked for and the metadata to remove.
    struct Loadable: Sendable {
        var asset: AssetRecord
        var representation: UTType
        var removal: MetadataRemoval
    }

    /// Redeems `token` for a load (`provider.load`, `provider.open`) as `type`.
    func loadable(_ token: String, as type: UTType?, by app: AppID, context: RequestContext) async throws -> Loadable {
        let (capability, asset) = try await redeemed(token, by: app, for: context.request.op)
        let requested = type ?? capability.types[0]
        guard let registered = Representations.representation(answering: requested, among: capability.types) else {
            throw LightboxError(.typeNotRegistered, "This item provider has no \(requested) representation; it registers \(capability.types.map(\.identifier).joined(separator: ", ")).")
        }
        // A Live Photo's bundle type loads as its still; its movie type as the paired movie.
        let representation = registered == .livePhoto ? Representations.livePhotoStill(among: capability.types, of: asset) : registered
        let resource = representation.conforms(to: .movie) ? (asset.pairedMovie ?? asset) : asset
        // Item providers always fetch from the cloud tier, reporting the download as progress.
        let responder = context.responder
        guard let local = try await cloud.localAsset(resource, networkAccessAllowed: true, progress: { responder.progress($0) }) else {
            throw LightboxError(.inCloud, "The original is in the cloud tier and could not be fetched.")
        }
        return Loadable(asset: local, representation: representation, removal: capability.removal)
    }

    func redeemed(_ token: String, by app: AppID, for op: OperationName) async throws -> (ProviderTokenStore.Capability, AssetRecord) {
        var (capability, asset) = try await tokens.capabilityAndAsset(of: token, by: app.rawValue, for: op)
        guard let asset else {
            throw LightboxError(.notFound, "The asset behind this item provider is no longer in the library.")
        }
        // Tokens issued before representations were recorded register the original.
        if capability.types.isEmpty { capability.types = [asset.type] }
        return (capability, asset)
    }

    func revoke(_ body: RevokeRequest) async throws -> RevokeResponse {
        if let token = body.token {
            return RevokeResponse(revoked: try await tokens.revoke(token: token))
        } else if let app = body.app {
            let revoked = try await tokens.revokeAll(of: app)
            if let desktopApp = DesktopAppID(filedAs: app) { portalRevocations.announce(desktopApp) }
            return RevokeResponse(revoked: revoked)
        }
        throw LightboxError(.badRequest, "Name a token or an app to revoke.")
    }

    /// The size of the file `provider.load` will send for the first registered type: a stripped or
    /// compatible still is made now (and cached, so the load that follows reuses it). Movies and
    /// originals in the cloud tier report the original's size: transcoding or downloading to
    /// answer a description would cost more than the answer is worth.
    func deliveredFileSize(of asset: AssetRecord, _ capability: ProviderTokenStore.Capability) async throws -> Int64 {
        let representation = capability.types.first ?? asset.type
        guard asset.mediaType == .image, !asset.isInCloud,
              Representations.removal(capability.removal, for: asset) != .none || representation != asset.type else { return asset.fileSize }
        return try await renditions.withDeliverableFile(for: asset, as: representation, removing: capability.removal) { file in
            let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber
            return size?.int64Value ?? 0
        }
    }
}
