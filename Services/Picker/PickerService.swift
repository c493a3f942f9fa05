import Foundation
import LightboxObjectStore
import LightboxPostgres
import LightboxProtocol
import LightboxTransport
import Logging
import Places
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
        /// Folders the library follows while serving (`LiveFolders`).
        public var watchFolders: [URL] = []
        /// How often the watched folders are rescanned when they cannot be followed live.
        public var watchRescanInterval: Duration = .seconds(30)
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
        /// The cloud tier in an object store instead of `cloudFolder`.
        public var cloudObjectStore: ObjectStoreCloudTier?
        /// How often the stored files no asset uses are swept (`StoredFileSweep`); zero never sweeps.
        public var sweepInterval: Duration = .seconds(24 * 3600)
        /// Stored files younger than this are left by the sweep: an import or a move may be using them.
        public var sweepGrace: Duration = .seconds(3600)
        /// Bytes the derived files (thumbnails, transcodes, stripped copies) may take; the least
        /// recently used go first.
        public var derivedQuota: Int64 = 1 << 30
        /// How many renderings and transcodes run at once (threads of the render pool).
        public var renderThreads = BlockingWorkPool.defaultThreadCount
        /// How long one rendering or transcode may compute before it is stopped (`timeout`).
        public var renderTimeLimit: Duration = .seconds(20)
        /// Originals in an S3-compatible object store instead of DATA/picker/originals.
        public var objectStore: ObjectStoreOriginals?
        /// Derived files in an object store, shared by every picker, with `derivedFolder` as their
        /// local cache; nil keeps them in `derivedFolder` only.
        public var derivedObjectStore: ObjectStoreDerivatives?
        /// How long a picker's claim on making a shared derivative lasts unless renewed (it renews
        /// it every third of this while it makes it): how long other pickers wait for a maker that died.
        public var derivativeLease: Duration = .seconds(30)
        /// The local folder of derived files (default DATA/picker/derived), at most `derivedQuota` bytes.
        public var derivedFolder: URL?
        /// Where the catalog is kept: nil for DATA/picker/catalog.sqlite, or a PostgreSQL database
        /// (`--database postgres://…`).
        public var database: PostgresLocation?
        /// The offline place table that names each photo's city and country at import (`PlaceTable`);
        /// nil: the one `make deps` installs, if any. Without one the picker runs without place search.
        public var placeTable: URL?

        public init(dataDirectory: URL, endpoint: String, authEndpoint: String) {
            self.dataDirectory = dataDirectory
            self.endpoint = endpoint
            self.authEndpoint = authEndpoint
        }
    }

    let configuration: Configuration
    let catalog: Catalog
    let tokens: ProviderTokenStore
    /// The timeouts of pending picks and of the owner's long polls.
    let deadlines: Deadlines
    let sessions: PickSessionStore
    let appNames = AppNameCache()
    /// Thumbnails, transcodes and stripped copies: made once, kept in memory and on disk.
    let renditions: RenditionStore
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
    let auth = AuthLink()
    /// What each app may see, as auth decided it.
    let access: LibraryAccess
    /// Tickets of `provider.open`, presented on `deliverySocket`.
    let fileTickets = FileTickets()
    /// lightbox-portal's watches of revoked desktop apps.
    let portalRevocations = PortalRevocations()
    /// The watched folders' imports, for the owner's pages.
    let watchedImports = WatchedImportProgress()
    /// The delivery socket beside an ipc endpoint, open while serving; nil over tcp.
    let deliverySocket = DeliverySocketSlot()
    let keys: KeyDirectory
    /// Names the place of each photo imported from its GPS position; nil without a place table.
    let places: ReverseGeocoder?
    let logger: Logger

    public init(_ configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        keys = KeyDirectory(dataDirectory: configuration.dataDirectory)
        deadlines = Deadlines()
        let pickerFolder = configuration.dataDirectory.appendingPathComponent("picker")
        let storage = try Self.openStorage(configuration, pickerFolder: pickerFolder, logger: logger)
        sessions = PickSessionStore(storage: storage.pickSessions, deadlines: deadlines,
                                    delivery: PickDelivery(pickTimeout: configuration.pickTimeout), logger: logger)
        changeFeed = LibraryChangeFeed(storage: storage)
        // With an object store, the local originals folder is its cache.
        let objectStore = try configuration.objectStore.map { try $0.makeStore(defaultCache: pickerFolder.appendingPathComponent("originals-cache")) }
        renderPool = BlockingWorkPool(threadCount: configuration.renderThreads, maximumWaiting: 64 * configuration.renderThreads,
                                      name: "lightbox-render")
        let cloudStore: any CloudStore = try configuration.cloudObjectStore?.makeStore() ?? LocalCloudFolder(
            folder: configuration.cloudFolder ?? pickerFolder.appendingPathComponent("cloud"), bandwidth: configuration.cloudBandwidth,
            pool: renderPool)
        catalog = Catalog(storage: storage, originals: objectStore?.cache.folder ?? pickerFolder.appendingPathComponent("originals"),
                          cloudStore: cloudStore, derived: configuration.derivedFolder ?? pickerFolder.appendingPathComponent("derived"),
                          changeFeed: changeFeed,
                          objectStore: objectStore)
        let auditReporter = AuditReporter()
        self.auditReporter = auditReporter
        decisions = LibraryDecisions(cache: DecisionCache(), selections: storage.selections, launches: LaunchNotices(),
                                     logger: logger, changeFeed: changeFeed)
        access = LibraryAccess(decisions: decisions, auth: auth, auditor: auditReporter, catalog: catalog)
        let sharedDerivatives = try configuration.derivedObjectStore.map { try $0.makeShared(logger: logger) }
        tokens = ProviderTokenStore(storage: storage.providerTokens, lifetime: configuration.tokenLifetime, audit: auditReporter)
        renditions = RenditionStore(catalog: catalog, quota: configuration.derivedQuota, pool: renderPool,
                                    timeLimit: configuration.renderTimeLimit, shared: sharedDerivatives,
                                    claims: Self.derivativeClaims(configuration, storage: storage, logger: logger), logger: logger)
        cloud = CloudTier(catalog: catalog, logger: logger)
        places = Self.loadPlaces(configuration.placeTable, logger: logger)
    }

    /// The place table, or nil (said in the log: the picker serves without place search).
    static func loadPlaces(_ table: URL?, logger: Logger) -> ReverseGeocoder? {
        guard let url = table ?? PlaceTable.installed else {
            logger.warning("place search is off: no place table at \(PlaceTable.defaultLocations.joined(separator: " or ")); `make deps` installs one")
            return nil
        }
        do throws(PlaceTableError) {
            let places = try PlaceTable.load(from: url)
            logger.info("place search is on", metadata: ["places": "\(places.count)", "table": "\(url.path)"])
            return places
        } catch {
            logger.warning("place search is off: \(error.message)", metadata: error.cause.map { ["cause": "\($0)"] } ?? [:])
            return nil
        }
    }

    var importer: LibraryImporter {
        var importer = LibraryImporter(catalog: catalog, logger: logger, pool: renderPool)
        importer.places = places
        let renditions = self.renditions
        importer.proveDecodes = { stored, contents, hash in try renditions.makeOwnerThumbnail(ofStored: stored, contents: contents, contentHash: hash) }
        importer.provedBytes = { await renditions.counted(madeElsewhere: $0) }
        return importer
    }

    /// Serves until the service group shuts down gracefully (SIGTERM/SIGINT in the executable), then
    /// cancels waiting picks, lets running requests and streams finish within the grace period and closes.
    public func run() async throws {
        // The catalog's connections (PostgreSQL), for as long as the picker serves.
        async let _ = catalog.storage.run()
        try await catalog.storage.prepare()
        let serviceKeys = try keys.loadOrCreateKeyPair(KeyDirectory.pickerService)
        // The auth service writes its key and the owner's on its first start.
        let authKey = try await keys.publicKey(KeyDirectory.authService, waitingUpTo: .seconds(30))
        let ownerKey = try await keys.publicKey(KeyDirectory.owner, waitingUpTo: .seconds(30))
        var authConfiguration = DealerConnection.Configuration(endpoint: configuration.authEndpoint, serverKey: authKey, keyPair: serviceKeys)
        authConfiguration.defaultTimeout = .seconds(5)
        let auth = try DealerConnection(authConfiguration, logger: logger)
        self.auth.attach(auth)
        auditReporter.attach { entries in auth.post(.recordAudit, AuditRecordRequest(entries: entries)) }
        try await changeFeed.start { [access] app, origin in try await access.view(.read, for: app, origin: origin) }
        // Child tasks of the serving, cancelled and awaited when run() returns.
        async let _ = decisions.follow(auth: auth)
        async let _ = deadlines.run()
        async let _ = sessions.follow()
        async let _ = changeFeed.run()
        async let _ = renditions.uploadToSharedStore()
        defer {
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
            } catch let error as ObjectStoreError {
                // The store holding the originals is down: what the catalog and the cache hold is served.
                logger.error("could not import a folder", metadata: ["folder": "\(folder.path)", "reason": "\(error)"])
            }
        }

        async let _ = sweepStoredFiles()

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
        defer { deliverySocket.close() }
        // The watched folders are imported and followed in the background, while the library is served.
        var following = LiveFolders(roots: watchedRoots(), importer: importer, progress: watchedImports, logger: logger)
        following.rescanInterval = configuration.watchRescanInterval
        let liveFolders = following
        async let followed: Void = liveFolders.run()
        logger.info("lightbox-picker serving", metadata: ["endpoint": "\(configuration.endpoint)", "auth": "\(configuration.authEndpoint)"])
        configuration.onServing()
        try? await gracefulShutdown()
        logger.info("lightbox-picker stopping")
        liveFolders.stop()
        await followed
        await sessions.shutDown()
        await server.shutDown(gracePeriod: configuration.shutdownGracePeriod)
        renderPool.stop()
        await catalog.objectStore?.client.shutdown()
        await (catalog.cloudStore as? S3CloudStore)?.client.shutdown()
        await (renditions.shared?.store as? S3DerivativeStore)?.client.shutdown()
    }
}

extension PickerService {
    /// The watched folders that can be followed, resolved; one that cannot is reported, not fatal.
    func watchedRoots() -> [String] {
        var roots: [String] = []
        for folder in configuration.watchFolders {
            do throws(LightboxError) {
                roots.append(try LibraryImporter.validatedFolder(folder.path).path)
            } catch {
                logger.error("cannot watch a folder", metadata: ["folder": "\(folder.path)", "reason": "\(error.message)"])
            }
        }
        return roots
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

extension PickerService {
    /// Sweeps the stored files no asset uses once the start-up import is done, then every
    /// `sweepInterval`, until cancelled. A sweep that fails (the object store is down) is tried
    /// again at the next interval.
    func sweepStoredFiles() async {
        guard configuration.sweepInterval > .zero else { return }
        var sweep = StoredFileSweep(catalog: catalog, grace: configuration.sweepGrace, logger: logger)
        sweep.derivedStore = renditions.shared?.store
        while !Task.isCancelled {
            do {
                _ = try await sweep.run()
            } catch is CancellationError {
                return
            } catch {
                logger.warning("could not sweep the stored files", metadata: ["reason": "\(error)"])
            }
            try? await Task.sleep(for: configuration.sweepInterval)
        }
    }
}
