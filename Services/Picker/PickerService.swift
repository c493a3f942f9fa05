import Foundation
import GRDB
import LightboxProtocol
import LightboxTransport
import Logging
import ServiceLifecycle
import Synchronization

/// `lightbox-picker`: the media plane. Owns the catalog, pick sessions and item-provider tokens;
/// asks lightbox-auth who a key belongs to; stores no permissions.
public final class PickerService: Service {
    public struct Configuration: Sendable {
        public var dataDirectory: URL
        public var endpoint: String
        public var authEndpoint: String
        /// How long an item-provider token stays valid.
        public var tokenLifetime: Duration = .seconds(3600)
        /// How long a pick waits for the owner before the app gets `timeout`.
        public var pickTimeout: Duration = .seconds(600)
        /// Picks one app may have waiting for the owner at once.
        public var pendingPicksPerApp = 16
        /// Folders imported (idempotently) before serving.
        public var importOnStart: [URL] = []
        /// How long requests being handled get to finish at shutdown before they are cancelled.
        public var shutdownGracePeriod: Duration = .seconds(5)
        /// Connections one app may hold to this service at once; one more is refused in its handshake.
        public var maximumConnectionsPerApp = 16
        /// Called once the endpoint is bound and requests are served (systemd's READY=1).
        public var onServing: @Sendable () -> Void = {}
        /// The cloud tier's folder (default DATA/picker/cloud).
        public var cloudFolder: URL?
        /// Bytes per second read from the cloud tier; 0 = as fast as the disk allows.
        public var cloudBandwidth = 0
        /// Bytes the derived files (thumbnails, transcodes, stripped copies) may take; the least
        /// recently used go first.
        public var derivedQuota: Int64 = 1 << 30
        /// How many renderings and transcodes run at once (threads of the render pool).
        public var renderThreads = BlockingWorkPool.defaultThreadCount
        /// How long one rendering or transcode may compute before it is stopped (`timeout`).
        public var renderTimeLimit: Duration = .seconds(20)

        public init(dataDirectory: URL, endpoint: String, authEndpoint: String) {
            self.dataDirectory = dataDirectory
            self.endpoint = endpoint
            self.authEndpoint = authEndpoint
        }
    }

    let configuration: Configuration
    let catalog: Catalog
    let tokens: ProviderTokenStore
    let sessions = PickSessionStore()
    let appNames = AppNameCache()
    let derivatives: DerivativeCache
    /// Small renditions served last, in memory (`RecentRenditions`).
    let recentRenditions = RecentRenditions(maximumBytes: 16 << 20)
    let orientations = OriginalOrientations()
    /// Where the picker's blocking work runs, at most `renderThreads` jobs at once: decoding and
    /// rendering, reading, hashing and copying at import, stripping, movie headers, cloud-tier reads.
    let renderPool: BlockingWorkPool
    let cloud: CloudTier
    let imageRequests = ImageRequestRegistry()
    /// Every read served, on its way to lightbox-auth's audit trail.
    let auditReporter: AuditReporter
    let changeFeed: LibraryChangeFeed
    /// lightbox-auth's decisions, cached while followed, and the limited selections they refer to.
    let decisions: LibraryDecisions
    /// The DEALER to lightbox-auth, made in `run` once auth's key is known.
    private let authLink = Mutex<DealerConnection?>(nil)
    /// Tickets of `provider.open`, presented on `deliverySocket`.
    let fileTickets = FileTickets()
    /// lightbox-portal's watches of revoked desktop apps.
    let portalRevocations = PortalRevocations()
    /// The delivery socket beside an ipc endpoint, open while serving; nil over tcp.
    let deliverySocket = Mutex<DeliverySocket?>(nil)
    let keys: KeyDirectory
    let logger: Logger

    public init(_ configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        keys = KeyDirectory(dataDirectory: configuration.dataDirectory)
        let pickerFolder = configuration.dataDirectory.appendingPathComponent("picker")
        let database = try CatalogDatabase.open(at: pickerFolder.appendingPathComponent("catalog.sqlite"))
        changeFeed = try LibraryChangeFeed(database: database)
        catalog = Catalog(database: database, originals: pickerFolder.appendingPathComponent("originals"),
                          cloud: configuration.cloudFolder ?? pickerFolder.appendingPathComponent("cloud"),
                          derived: pickerFolder.appendingPathComponent("derived"), changeFeed: changeFeed)
        let auditReporter = AuditReporter()
        self.auditReporter = auditReporter
        decisions = LibraryDecisions(cache: DecisionCache(), selections: SelectionTable(database: database), launches: LaunchNotices(),
                                     logger: logger)
        tokens = ProviderTokenStore(database: database, lifetime: configuration.tokenLifetime, audit: auditReporter)
        renderPool = BlockingWorkPool(threadCount: configuration.renderThreads, maximumWaiting: 64 * configuration.renderThreads,
                                      name: "lightbox-render")
        derivatives = DerivativeCache(folder: catalog.derived, quota: configuration.derivedQuota, pool: renderPool)
        cloud = CloudTier(catalog: catalog, bandwidth: configuration.cloudBandwidth, logger: logger, pool: renderPool)
    }

    /// The side and JPEG quality of the owner's thumbnails (the one made at import included).
    static let ownerThumbnailSide = 256
    static let ownerThumbnailQuality = 80

    var importer: LibraryImporter {
        var importer = LibraryImporter(catalog: catalog, logger: logger, pool: renderPool)
        let derivatives = self.derivatives
        let timeLimit = configuration.renderTimeLimit
        importer.proveDecodes = { stored, contents, hash in
            try Self.importThumbnail(of: stored, contents: contents, contentHash: hash, side: Self.ownerThumbnailSide, in: derivatives,
                                     timeLimit: timeLimit)
        }
        importer.provedBytes = { await derivatives.counted(madeElsewhere: $0) }
        return importer
    }

    func authConnection() throws(LightboxError) -> DealerConnection {
        guard let auth = authLink.withLock({ $0 }) else {
            throw LightboxError(.busy, "lightbox-picker is still starting; try again in a moment.")
        }
        return auth
    }

    /// Serves until the service group shuts down gracefully (SIGTERM/SIGINT in the executable), then
    /// cancels waiting picks, lets running requests and streams finish within the grace period and closes.
    public func run() async throws {
        let serviceKeys = try keys.loadOrCreateKeyPair(KeyDirectory.pickerService)
        // The auth service writes its key and the owner's on its first start.
        let authKey = try await keys.publicKey(KeyDirectory.authService, waitingUpTo: .seconds(30))
        let ownerKey = try await keys.publicKey(KeyDirectory.owner, waitingUpTo: .seconds(30))
        var authConfiguration = DealerConnection.Configuration(endpoint: configuration.authEndpoint, serverKey: authKey, keyPair: serviceKeys)
        authConfiguration.defaultTimeout = .seconds(5)
        let auth = try DealerConnection(authConfiguration, logger: logger)
        authLink.withLock { $0 = auth }
        auditReporter.attach { entries in auth.post(.recordAudit, AuditRecordRequest(entries: entries)) }
        await changeFeed.start { [self] app, connection in
            LibraryView(app: app, decision: try await decide(.read, for: app, connection: connection), selections: decisions.selections)
        }
        let follower = Task { [decisions] in await decisions.follow(auth: auth) }
        defer {
            follower.cancel()
            auditReporter.flush()
            auth.close()
        }

        for folder in configuration.importOnStart {
            // A folder that cannot be walked (gone, unreadable, too large) is reported, not fatal:
            // the library the picker has is still served.
            do {
                let summary = try await importer.importFolder(try LibraryImporter.validatedFolder(folder.path)) { _ in }
                for failure in summary.failed {
                    logger.warning("could not import a file", metadata: ["file": "\(failure.file)", "reason": "\(failure.message)"])
                }
            } catch let error as LightboxError {
                logger.error("could not import a folder", metadata: ["folder": "\(folder.path)", "reason": "\(error.message)"])
            }
        }

        let appNames = self.appNames
        let logger = self.logger
        let portalKey = keys.laterKey(KeyDirectory.portalService)
        let principalForKey: @Sendable (String) async -> Identification = { publicKey in
            if publicKey == ownerKey { return .known(.owner) }
            if portalKey.matches(publicKey) { return .known(.portal) }
            do {
                let app = try await auth.request(.identify, IdentifyRequest(publicKey: publicKey), as: AppManifestResponse.self).manifest
                await appNames.remember(app)
                return .known(.app(app.id))
            } catch let error as LightboxError where error.code == .notFound {
                return .unknown
            } catch {
                // Not a stranger: auth could not say (it may be restarting). The app connects again.
                logger.warning("lightbox-auth did not answer who a key is", metadata: ["error": "\(error)"])
                return .unavailable
            }
        }
        var serverConfiguration = RouterServer.Configuration(endpoint: configuration.endpoint, keyPair: serviceKeys, identify: principalForKey)
        serverConfiguration.maximumConnectionsPerApp = configuration.maximumConnectionsPerApp
        let operations = makeOperationTable()
        let server = try RouterServer(serverConfiguration, logger: logger) { request, responder in
            await operations.handle(request, responder)
        }
        // Without its delivery socket the picker still serves: provider.open answers badRequest
        // and clients stream.
        do {
            try openDeliverySocket()
        } catch {
            logger.warning("no delivery by file descriptor", metadata: ["reason": "\(error)"])
        }
        defer { deliverySocket.withLock { $0 }?.close() }
        logger.info("lightbox-picker serving", metadata: ["endpoint": "\(configuration.endpoint)", "auth": "\(configuration.authEndpoint)"])
        configuration.onServing()
        try? await gracefulShutdown()
        logger.info("lightbox-picker stopping")
        for session in await sessions.pending() {
            _ = await sessions.take(session.id)
            session.reply.fail(LightboxError(.cancelled, "lightbox-picker is shutting down; try the pick again when it is back."),
                               audit: Self.pickAnswered(.cancelled))
        }
        await server.shutDown(gracePeriod: configuration.shutdownGracePeriod)
        renderPool.stop()
    }

    /// An asset of the library, for the owner; anything else is `notFound`.
    func ownedAsset(_ identifier: String) async throws -> AssetRecord {
        guard let asset = try await catalog.asset(identifier) else {
            throw LightboxError(.notFound, "No asset \(identifier) in the library.")
        }
        return asset
    }

    func pendingPicks(_ body: PendingPicksRequest) async -> PendingPicksResponse {
        await sessions.waitForPending(upTo: .milliseconds(min(max(body.waitMs ?? 0, 0), 60_000)))
        return PendingPicksResponse(picks: await sessions.pending().map(\.pending))
    }

    func cancelPick(_ body: CancelPickRequest) async throws -> Empty {
        guard let session = await sessions.take(body.pick) else { throw noSuchPick(body.pick) }
        session.reply.succeed(PickResponse(pick: body.pick, results: []), audit: Self.pickAnswered(.cancelled))
        return Empty()
    }

    func revoke(_ body: RevokeRequest) async throws -> RevokeResponse {
        if let token = body.token {
            return RevokeResponse(revoked: try await tokens.revoke(token: token))
        } else if let app = body.app {
            let revoked = try await tokens.revokeAll(of: app)
            // lightbox-portal removes the files it delivered to a desktop app.
            if let desktopApp = DesktopAppID(filedAs: app) { portalRevocations.announce(desktopApp) }
            return RevokeResponse(revoked: revoked)
        }
        throw LightboxError(.badRequest, "Name a token or an app to revoke.")
    }

    /// The least time between two import progress replies. A progress bar needs a few a second;
    /// one per file (small photos import many a second) kept the picker and its client busy with
    /// replies no one could read that fast.
    static let importProgressInterval: Duration = .milliseconds(100)

    func importLibrary(_ body: ImportRequest, _ context: RequestContext) async throws -> ImportSummary {
        let folder = try LibraryImporter.validatedFolder(body.path)
        let clock = ContinuousClock()
        var lastSent: ContinuousClock.Instant?
        return try await importer.importFolder(folder) { step in
            let now = clock.now
            // The first file, then at most one a tenth of a second, and always the last.
            guard step.completed == step.total || lastSent.map({ now - $0 >= Self.importProgressInterval }) ?? true else { return }
            lastSent = now
            context.progress(step)
        }
    }

    // MARK: Apps

    /// The audit facts of a pick's answer (`pick:answered`).
    static func pickAnswered(_ outcome: AuditOutcome, count: Int = 0) -> AuditFacts {
        AuditFacts(outcome, assetCount: count, detail: AuditOperation.PickStep.answered.rawValue)
    }

    func startPick(_ app: AppID, _ body: PickRequest, _ context: inout RequestContext, _ reply: LaterReply<PickResponse>) async throws {
        let configuration = body.configuration
        guard configuration.selectionLimit >= 0 else {
            throw LightboxError(.badRequest, "selectionLimit must be 0 (no limit) or more.")
        }
        guard let session = await sessions.open(app: app.rawValue, appName: await appNames.name(of: app.rawValue), configuration: configuration,
                                                reply: reply, limit: self.configuration.pendingPicksPerApp) else {
            throw LightboxError(.busy, "App \(app) already has \(self.configuration.pendingPicksPerApp) picks waiting for the owner, its limit; wait for them to be answered.")
        }
        context.event(PickStarted(pick: session.id))
        context.audit(.waiting, assetCount: configuration.selectionLimit)
        logger.info("pick waiting for the owner", metadata: ["pick": "\(session.id)", "app": "\(app)"])
        let sessions = self.sessions
        let timeout = self.configuration.pickTimeout
        Task {
            try? await Task.sleep(for: timeout)
            if let expired = await sessions.take(session.id) {
                expired.reply.fail(LightboxError(.timeout, "The owner did not finish the pick within \(timeout); ask again."),
                                   audit: Self.pickAnswered(.timeout))
            }
        }
    }

    func describe(_ app: AppID, _ body: TokenRequest, _ context: inout RequestContext) async throws -> ProviderDescription {
        let (capability, asset) = try await redeemed(body.token, by: app, for: context.request.op)
        let properties = Representations.properties(asset.imageProperties, stripping: capability.stripping)
        let fileSize = try await deliveredFileSize(of: asset, capability)
        context.audit(.ok, assetCount: 1, asset: asset.identifier)
        return ProviderDescription(registeredTypeIdentifiers: capability.types, suggestedName: asset.suggestedName,
                                   fileSize: fileSize, properties: asset.basicProperties, imageProperties: properties)
    }

    func load(_ app: AppID, _ body: LoadRequest, _ context: inout RequestContext) async throws -> Streamed<StreamCompletion> {
        let loadable = try await loadable(body.token, as: body.type, by: app, context: context)
        let responder = context.responder
        let outcome = try await withDeliverableFile(for: loadable.asset, as: loadable.representation, stripping: loadable.stripping,
                                                    progress: { responder.progress($0) }) { [self] file in
            try await stream(loadable.asset, file: file, as: loadable.representation, credit: body.credit, chunkSize: body.chunkSize,
                             app: app, responder: responder)
        }
        context.audit(AuditFacts(outcome, asset: loadable.asset.identifier))
        return .stream(outcome)
    }

    /// What a token's load delivers: its asset (the paired movie for a Live Photo's movie type)
    /// with its original local, the representation asked for and the metadata to remove.
    struct Loadable: Sendable {
        var asset: AssetRecord
        var representation: UTType
        var stripping: MetadataStripping
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
        guard let local = try await localAsset(resource, networkAccessAllowed: true, progress: { responder.progress($0) }) else {
            throw LightboxError(.inCloud, "The original is in the cloud tier and could not be fetched.")
        }
        return Loadable(asset: local, representation: representation, stripping: capability.stripping)
    }

    /// Streams a file under the client's credit; returns how the stream ended.
    func stream(_ asset: AssetRecord, file: URL, as type: UTType, credit: Int?, chunkSize: Int?, app: AppID,
                responder: Responder) async throws -> StreamOutcome {
        let chunkSize = min(max(chunkSize ?? LoadRequest.defaultChunkSize, 4096), LoadRequest.maximumChunkSize)
        let credit = min(max(credit ?? LoadRequest.defaultCredit, 1), 64)
        let outcome: StreamOutcome
        do {
            // The original as it was imported: its digest is known, and a copy damaged since fails the client's check.
            let digest = file.standardizedFileURL == catalog.originalURL(of: asset).standardizedFileURL ? asset.contentHash : nil
            outcome = try await responder.stream(file: file, credit: credit, chunkSize: chunkSize, type: type, suggestedName: asset.suggestedName,
                                                 digest: digest)
        } catch {
            logger.error("original missing", metadata: ["asset": "\(asset.identifier)", "error": "\(error)"])
            throw LightboxError(.notFound, "The original of this asset is missing from the library; the owner should re-import it.")
        }
        logger.info("load finished", metadata: ["app": "\(app)", "asset": "\(asset.identifier)", "outcome": "\(outcome)"])
        return outcome
    }

    func redeemed(_ token: String, by app: AppID, for op: OperationName) async throws -> (ProviderTokenStore.Capability, AssetRecord) {
        var (capability, asset) = try tokens.capability(of: token, by: app.rawValue, for: op, readingAlso: Catalog.asset)
        guard let asset else {
            throw LightboxError(.notFound, "The asset behind this item provider is no longer in the library.")
        }
        // Tokens issued before representations were recorded register the original.
        if capability.types.isEmpty { capability.types = [asset.type] }
        return (capability, asset)
    }

    // MARK: Owner

    func choose(_ body: ChooseRequest) async throws -> ChooseResponse {
        guard let session = await sessions.session(body.pick) else { throw noSuchPick(body.pick) }
        let configuration = session.configuration
        guard !body.assets.isEmpty else {
            throw LightboxError(.badRequest, "Choose at least one asset, or cancel the pick (owner.cancel) to send the app no results.")
        }
        guard Set(body.assets).count == body.assets.count else {
            throw LightboxError(.badRequest, "Each asset can be chosen once.")
        }
        if configuration.selectionLimit > 0, body.assets.count > configuration.selectionLimit {
            throw LightboxError(.badRequest, "This pick allows at most \(configuration.selectionLimit) asset(s); \(body.assets.count) were chosen.")
        }
        let found = try await catalog.assets(body.assets)
        if let missing = body.assets.first(where: { found[$0] == nil }) {
            throw LightboxError(.notFound, "No asset \(missing) in the library.", details: ["asset": missing])
        }
        if let filter = configuration.filter, let excluded = body.assets.first(where: { !filter.matches(found[$0]!.traits) }) {
            throw LightboxError(.badRequest, "Asset \(excluded) does not match this pick's filter \(filter).", details: ["asset": excluded])
        }
        var chosen = body.assets.map { found[$0]! }
        if configuration.selection == .default { chosen.sort(by: AssetRecord.precedesInLibrary) }
        // The owner may remove more metadata than the app asked, never less.
        let stripping = max(configuration.stripMetadata, body.stripMetadata ?? .none)
        let requests = chosen.map { asset in
            ProviderTokenStore.Request(asset: asset.identifier, types: Representations.registeredTypes(
                for: asset, mode: configuration.preferredAssetRepresentationMode, stripping: stripping))
        }
        // Every token is stored, in one transaction, before the session is claimed: when issuing
        // fails, the owner is told and the app's pick still waits; once claimed, nothing can fail.
        let grants = try await tokens.issue(app: session.app, pick: session.id, requests, stripping: stripping)
        // A concurrent choose or cancel may have answered meanwhile: the tokens never leave.
        guard let claimed = await sessions.take(body.pick) else {
            try await tokens.discard(grants)
            throw noSuchPick(body.pick)
        }
        let results = zip(chosen, zip(requests, grants)).map { asset, issued in
            let (request, grant) = issued
            let provider = ItemProviderDescriptor(token: grant.token, registeredTypeIdentifiers: request.types,
                                                  suggestedName: asset.suggestedName, expiresAt: grant.expiresAt)
            return PickerResult(assetIdentifier: configuration.photoLibrary ? asset.identifier : nil, itemProvider: provider)
        }
        claimed.reply.succeed(PickResponse(pick: claimed.id, results: results), audit: Self.pickAnswered(.delivered, count: results.count))
        logger.info("pick completed", metadata: ["pick": "\(claimed.id)", "app": "\(claimed.app)", "count": "\(results.count)"])
        return ChooseResponse(delivered: results.count)
    }

    // MARK: Principals

    func noSuchPick(_ pick: String) -> LightboxError {
        LightboxError(.notFound, "No pending pick \(pick); it may have been answered, cancelled or timed out.", details: ["pick": pick])
    }
}

/// Display names of apps seen at handshake, for the owner's pending-pick list.
actor AppNameCache {
    private var names: [String: String] = [:]
    func remember(_ app: AppManifest) { names[app.id] = app.name }
    /// A desktop app's name as lightbox-portal gives it.
    func remember(_ app: String, name: String) { names[app] = name }
    func name(of app: String) -> String? { names[app] }
}
