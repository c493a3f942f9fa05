import Foundation
import LightboxPostgres
import LightboxProtocol
import LightboxTransport
import Logging
import ServiceLifecycle

/// `lightbox-auth`: the control plane. Knows the apps, their authorization per access level, their
/// limited selections, the prompts waiting for the owner, and every decision made. Never decodes media.
public final class AuthService: Service {
    public struct Configuration: Sendable {
        public var dataDirectory: URL
        public var endpoint: String
        /// The PostgreSQL database holding the service's state; nil keeps it in SQLite in the data folder.
        public var database: PostgresLocation?
        /// How long an authorization prompt waits for the owner before the app gets `timeout`.
        public var promptTimeout: Duration = .seconds(120)
        /// How often open watches get a keep-alive; sending it finds the connections that are gone.
        public var watchKeepAlive: Duration = .seconds(30)
        /// Authorization and limited-library requests one app may have waiting for the owner.
        public var promptWaitsPerApp = 32
        /// How long requests being handled get to finish at shutdown before they are cancelled.
        public var shutdownGracePeriod: Duration = .seconds(5)
        /// Connections one app may hold to this service at once; one more is refused in its handshake.
        public var maximumConnectionsPerApp = 16
        /// Access an app has not used for this long is reset to notDetermined; nil never resets.
        public var resetUnusedAfter: Duration? = .seconds(90 * 86_400)
        /// Called once the endpoint is bound and requests are served (systemd's READY=1).
        public var onServing: @Sendable () -> Void = {}

        public init(dataDirectory: URL, endpoint: String) {
            self.dataDirectory = dataDirectory
            self.endpoint = endpoint
        }
    }

    public let registry: AppRegistry
    /// Everything the service keeps: apps, access, the change log, the audit trail.
    let store: any AuthStorage
    let audit: AuditLog
    /// The timeouts of open prompts, of decision confirmations and of the owner's long polls.
    let deadlines: Deadlines
    let prompts: PromptCenter
    let broadcaster: ChangeBroadcaster
    /// Where committed changes of access go: watchers and the picker.
    let accessChanges: AccessChanges
    /// Grants that end, and access reset when unused.
    let grantTerms: GrantTerms
    let launches = LaunchTracker()
    let followers: DecisionFollowers
    /// Requests waiting on the owner, per app; they hold no handler slot while they wait.
    let promptWaits: PerAppLimit
    let configuration: Configuration
    let keys: KeyDirectory
    let logger: Logger

    public init(_ configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        keys = KeyDirectory(dataDirectory: configuration.dataDirectory)
        deadlines = Deadlines()
        prompts = PromptCenter(timeout: configuration.promptTimeout, deadlines: deadlines)
        promptWaits = PerAppLimit(configuration.promptWaitsPerApp)
        followers = DecisionFollowers(deadlines: deadlines, logger: logger)
        if let location = configuration.database {
            store = PostgresAuthStorage(location: location, logger: logger)
        } else {
            store = try SQLiteAuthStorage(at: configuration.dataDirectory.appendingPathComponent("auth/auth.sqlite"))
        }
        registry = AppRegistry(storage: store)
        audit = AuditLog(storage: store)
        let broadcaster = ChangeBroadcaster()
        self.broadcaster = broadcaster
        accessChanges = AccessChanges(broadcaster: broadcaster, followers: followers, logger: logger)
        grantTerms = GrantTerms(store: store, accessChanges: accessChanges, deadlines: deadlines,
                                unusedAfter: configuration.resetUnusedAfter, logger: logger)
    }

    /// Serves until the service group shuts down gracefully (SIGTERM/SIGINT in the executable), then
    /// answers what is waiting, lets running requests finish within the grace period and closes.
    public func run() async throws {
        try await store.whileOpen { try await serve() }
    }

    private func serve() async throws {
        let serviceKeys = try keys.loadOrCreateKeyPair(KeyDirectory.authService)
        let ownerKey = try keys.loadOrCreateKeyPair(KeyDirectory.owner).publicKey
        let registry = self.registry
        let logger = self.logger
        // The picker's and the portal's keys are read once they exist (each writes its own on its first start).
        let pickerKey = keys.laterKey(KeyDirectory.pickerService)
        let portalKey = keys.laterKey(KeyDirectory.portalService)
        let principalForKey: @Sendable (String) async -> Identification = { publicKey in
            if publicKey == ownerKey { return .known(.owner) }
            if pickerKey.matches(publicKey) { return .known(.service(KeyDirectory.pickerService)) }
            if portalKey.matches(publicKey) { return .known(.portal) }
            do {
                guard let app = try await registry.app(withPublicKey: publicKey) else { return .unknown }
                return .known(.app(app.id))
            } catch {
                logger.warning("could not look a key up in the app registry", metadata: ["error": "\(error)"])
                return .unavailable
            }
        }
        var serverConfiguration = RouterServer.Configuration(endpoint: configuration.endpoint, keyPair: serviceKeys, identify: principalForKey)
        serverConfiguration.maximumConnectionsPerApp = configuration.maximumConnectionsPerApp
        let operations = makeOperationTable()
        let server = try RouterServer(serverConfiguration, logger: logger) { request, responder in
            await operations.handle(request, responder)
        }
        logger.info("lightbox-auth serving", metadata: ["endpoint": "\(configuration.endpoint)", "data": "\(configuration.dataDirectory.path)",
                                                       "database": "\(configuration.database.map(String.init(describing:)) ?? "SQLite")"])
        let broadcaster = self.broadcaster
        let interval = configuration.watchKeepAlive
        let followers = self.followers
        let deadlines = self.deadlines
        let grantTerms = self.grantTerms
        let audit = self.audit
        // The keep-alive loops and the deadlines are child tasks: they end with the serving,
        // cancelled once shutdown begins.
        await withDiscardingTaskGroup { group in
            group.addTask { await deadlines.run() }
            group.addTask { await audit.run() }
            group.addTask { await grantTerms.start() }
            group.addTask { await grantTerms.resetUnusedAccess() }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    let released = await broadcaster.keepAlive()
                    if released > 0 { logger.notice("released watches of connections that are gone", metadata: ["watches": "\(released)"]) }
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    await followers.keepAlive()
                }
            }
            configuration.onServing()
            try? await gracefulShutdown()
            group.cancelAll()
        }
        logger.info("lightbox-auth stopping")
        await prompts.cancelAll(because: "lightbox-auth is shutting down; ask again when it is back.")
        await followers.endAll(because: "lightbox-auth is shutting down")
        await server.shutDown(gracePeriod: configuration.shutdownGracePeriod)
        await audit.flush()
    }
}
