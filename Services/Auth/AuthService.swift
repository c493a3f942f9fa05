import Foundation
import Synchronization
import GRDB
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
        /// Called once the endpoint is bound and requests are served (systemd's READY=1).
        public var onServing: @Sendable () -> Void = {}

        public init(dataDirectory: URL, endpoint: String) {
            self.dataDirectory = dataDirectory
            self.endpoint = endpoint
        }
    }

    /// The most entries one `auth.audit.record` may carry; the picker sends far fewer.
    static let maximumAuditBatch = 10_000

    public let registry: AppRegistry
    let store: AuthorizationStore
    let audit: AuditLog
    let prompts: PromptCenter
    let broadcaster = ChangeBroadcaster()
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
        prompts = PromptCenter(timeout: configuration.promptTimeout)
        promptWaits = PerAppLimit(configuration.promptWaitsPerApp)
        followers = DecisionFollowers(logger: logger)
        let database = try AuthDatabase.open(at: configuration.dataDirectory.appendingPathComponent("auth/auth.sqlite"))
        registry = AppRegistry(database: database)
        store = AuthorizationStore(database: database)
        audit = AuditLog(database: database)
    }

    /// Serves until the service group shuts down gracefully (SIGTERM/SIGINT in the executable), then
    /// answers what is waiting, lets running requests finish within the grace period and closes.
    public func run() async throws {
        let serviceKeys = try keys.loadOrCreateKeyPair(KeyDirectory.authService)
        let ownerKey = try keys.loadOrCreateKeyPair(KeyDirectory.owner).publicKey
        let keys = self.keys
        let registry = self.registry
        let logger = self.logger
        // The picker's key is read once it exists (the picker writes it on its first start).
        let pickerKey = Mutex<String?>(nil)
        let principalForKey: @Sendable (String) async -> Identification = { publicKey in
            if publicKey == ownerKey { return .known(.owner) }
            let picker = pickerKey.withLock { known in
                if known == nil { known = try? CurveKeyPair.loadPublicKey(from: keys.publicKeyURL(KeyDirectory.pickerService)) }
                return known
            }
            if picker == publicKey { return .known(.service(KeyDirectory.pickerService)) }
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
        let server = try RouterServer(serverConfiguration, logger: logger) { [self] request, responder in
            await handle(request, responder)
        }
        logger.info("lightbox-auth serving", metadata: ["endpoint": "\(configuration.endpoint)", "data": "\(configuration.dataDirectory.path)"])
        let broadcaster = self.broadcaster
        let interval = configuration.watchKeepAlive
        let keepAlive = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                let released = await broadcaster.keepAlive()
                if released > 0 { logger.notice("released watches of connections that are gone", metadata: ["watches": "\(released)"]) }
            }
        }
        let followers = self.followers
        let followerKeepAlive = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                await followers.keepAlive()
            }
        }
        configuration.onServing()
        try? await gracefulShutdown()
        keepAlive.cancel()
        followerKeepAlive.cancel()
        logger.info("lightbox-auth stopping")
        await prompts.cancelAll(because: "lightbox-auth is shutting down; ask again when it is back.")
        await followers.endAll(because: "lightbox-auth is shutting down")
        await server.shutDown(gracePeriod: configuration.shutdownGracePeriod)
        await audit.flush()
    }

    func handle(_ request: IncomingRequest, _ responder: Responder) async {
        await Self.operations.handle(self, request, responder)
    }

    func identifyService(_ request: IncomingRequest, _ responder: Responder) async throws {
        responder.succeed(ServiceIdentity(service: "auth", principal: request.principal.userId))
    }

    // MARK: Apps

    func authorizationStatus(_ request: IncomingRequest, _ responder: Responder) async throws {
        let app = try request.requireApp()
        let level = try request.body(StatusRequest.self).level
        let access = try await store.access(of: app, includingSelection: false)
        let status = level.map(access.status) ?? AccessPolicy.legacyStatus(readWrite: access.readWrite)
        audit.record(app: app, operation: .status(level), outcome: .status(status))
        responder.succeed(StatusResponse(level: level, status: status))
    }

    func watch(_ request: IncomingRequest, _ responder: Responder) async throws {
        let app = try request.requireApp()
        let since = try request.body(ChangesRequest.self).since
        // Registered before the replay, so no change falls between the two; one that lands in
        // both comes twice with the same token, and clients drop tokens they have seen.
        await broadcaster.add(responder, for: app)
        if let since {
            for change in try await store.changes(of: app, since: since) { responder.event(change) }
        }
    }

    func changes(_ request: IncomingRequest, _ responder: Responder) async throws {
        let app = try request.requireApp()
        let since = try request.body(ChangesRequest.self).since ?? 0
        let changes = try await store.changes(of: app, since: since)
        let latest = try await store.latestToken(of: app)
        responder.succeed(ChangesResponse(changes: changes, token: max(since, latest)))
    }

    // MARK: The owner

    func registerApp(_ request: IncomingRequest, _ responder: Responder) async throws {
        let manifest = try await registry.register(try request.body(RegisterAppRequest.self).manifest)
        logger.info("registered app", metadata: ["app": "\(manifest.id)"])
        responder.succeed(AppManifestResponse(manifest: manifest))
    }

    func listApps(_ request: IncomingRequest, _ responder: Responder) async throws {
        responder.succeed(AppListResponse(apps: try await registry.apps()))
    }

    func listPrompts(_ request: IncomingRequest, _ responder: Responder) async throws {
        let wait = try request.body(PromptsRequest.self).waitMs ?? 0
        await prompts.waitForPrompts(upTo: .milliseconds(min(max(wait, 0), 60_000)))
        responder.succeed(PromptsResponse(prompts: await prompts.all()))
    }

    func answerPrompt(_ request: IncomingRequest, _ responder: Responder) async throws {
        try await answerPrompt(try request.body(AnswerPromptRequest.self))
        responder.succeed(Empty())
    }

    func listAppAccess(_ request: IncomingRequest, _ responder: Responder) async throws {
        var list: [AppAccess] = []
        for app in try await registry.apps() { list.append(try await appAccess(app)) }
        responder.succeed(AppAccessListResponse(apps: list))
    }

    func setAccess(_ request: IncomingRequest, _ responder: Responder) async throws {
        try await setAccess(try request.body(SetAccessRequest.self), responder)
    }

    func accessDetail(_ request: IncomingRequest, _ responder: Responder) async throws {
        responder.succeed(try await accessDetail(of: try request.body(AccessDetailRequest.self).app))
    }

    func auditEntries(_ request: IncomingRequest, _ responder: Responder) async throws {
        responder.succeed(try await audit.entries(try request.body(AuditRequest.self)))
    }

    // MARK: Services

    func identifyApp(_ request: IncomingRequest, _ responder: Responder) async throws {
        let key = try request.body(IdentifyRequest.self).publicKey
        guard let app = try await registry.app(withPublicKey: key) else {
            throw LightboxError(.notFound, "No app is registered with that key.")
        }
        responder.succeed(AppManifestResponse(manifest: app))
    }

    // MARK: Decisions for the picker

    /// `auth.decisions.follow`: the stream stays open; each event names apps whose decisions changed.
    func followDecisions(_ request: IncomingRequest, _ responder: Responder) async throws {
        _ = await followers.add(responder)
    }

    func decisionsApplied(_ request: IncomingRequest, _ responder: Responder) async throws {
        await followers.confirm(try request.body(DecisionsApplied.self))
        responder.succeed(Empty())
    }

    func appDecisions(_ request: IncomingRequest, _ responder: Responder) async throws {
        responder.succeed(try await decisions(of: try request.body(AppDecisionsRequest.self).app))
    }

    /// Every action's decision for `app` and its selection. The version is read before the store, so
    /// a change committed meanwhile is announced with a newer one and the picker drops this answer.
    func decisions(of app: String) async throws -> AppDecisions {
        let version = await followers.current
        let access = try await store.access(of: app)
        var decisions: [String: LibraryDecision] = [:]
        for action in LibraryAction.allCases {
            decisions[action.rawValue] = AccessPolicy.decide(action, readWrite: access.readWrite, addOnly: access.addOnly)
        }
        return AppDecisions(app: app, version: version, decisions: decisions,
                            selection: access.readWrite == .limited ? access.selection : [])
    }

    /// `auth.launch`: a limited app's first library access in each launch raises the limited-library picker.
    func appLaunched(_ request: IncomingRequest, _ responder: Responder) async throws {
        let launch = try request.body(AppLaunch.self)
        responder.succeed(Empty())
        let status = try await store.access(of: launch.app, includingSelection: false).readWrite
        if status == .limited, await launches.isFirstAccess(app: launch.app, connection: launch.connection),
           try await registry.app(withID: launch.app)?.preventAutomaticLimitedAccessAlert == false {
            _ = try await openLimitedLibraryPrompt(app: launch.app, selection: try await store.access(of: launch.app).selection)
        }
    }

    func assetCreated(_ request: IncomingRequest, _ responder: Responder) async throws {
        let body = try request.body(AssetCreatedRequest.self)
        let access = try await store.access(of: body.app, includingSelection: false)
        // Assets a limited app creates join its selection.
        if access.readWrite == .limited {
            await publish(try await store.apply(.init(addedAssets: [body.asset]), to: body.app))
        }
        audit.record(app: body.app, operation: .create, assetCount: 1, outcome: .created, asset: body.asset)
        responder.succeed(Empty())
    }

    func recordAudit(_ request: IncomingRequest, _ responder: Responder) async throws {
        let entries = try request.body(AuditRecordRequest.self).entries
        audit.record(entries.prefix(Self.maximumAuditBatch).map { entry in
            var entry = entry
            entry.id = nil
            return entry
        })
        responder.succeed(Empty())
    }

    // MARK: Prompts

    func requestAuthorization(_ request: IncomingRequest, _ responder: Responder) async throws {
        let app = try request.requireApp()
        let level = try request.body(AuthorizationRequest.self).level
        let status = try await store.access(of: app).status(level)
        // Only while notDetermined: afterwards the stored answer stands until the owner changes it.
        guard status == .notDetermined else {
            audit.record(app: app, operation: .request(level), outcome: .stored(status))
            responder.succeed(StatusResponse(level: level, status: status))
            return
        }
        guard let manifest = try await registry.app(withID: app) else {
            throw LightboxError(.notFound, "App \(app) is no longer registered.")
        }
        let usage = level == .readWrite ? manifest.usageReadWrite : manifest.usageAddOnly
        guard let usage, !usage.trimmingCharacters(in: .whitespaces).isEmpty else {
            audit.record(app: app, operation: .request(level), outcome: .missingUsageDescription)
            let flag = level == .readWrite ? "--usage-read-write" : "--usage-add-only"
            throw LightboxError(.missingUsageDescription,
                                "\(manifest.name) must say why it wants \(level) access before it may ask: register it again with \(flag) \"…\".")
        }
        guard promptWaits.enter(app) else { throw tooManyPromptWaits(app) }
        // The handler returns once the prompt is open; the answer (or the time-out) is sent when it
        // comes, holding no handler slot.
        let prompt = await prompts.open(kind: .authorization, app: app, appName: manifest.name, level: level,
                                        usageDescription: usage, selection: []) { [self] outcome in
            promptWaits.leave(app)
            switch outcome {
            case .status(let answered):
                responder.succeed(StatusResponse(level: level, status: answered))
            case .withdrawn(let reason):
                responder.fail(LightboxError(.cancelled, reason))
            default:
                responder.fail(LightboxError(.timeout, "The owner did not answer within \(configuration.promptTimeout); the status stays notDetermined. Ask again later."))
                audit.record(app: app, operation: .request(level), outcome: .timeout)
            }
        }
        responder.event(PromptShown(prompt: prompt.prompt))
        logger.info("prompting the owner", metadata: ["app": "\(app)", "level": "\(level)", "prompt": "\(prompt.prompt)"])
    }

    func tooManyPromptWaits(_ app: String) -> LightboxError {
        LightboxError(.busy, "App \(app) already has \(promptWaits.limit) requests waiting for the owner, its limit; wait for the owner to answer before asking again.")
    }

    func presentLimitedLibraryPicker(_ request: IncomingRequest, _ responder: Responder) async throws {
        let app = try request.requireApp()
        let access = try await store.access(of: app)
        guard access.readWrite == .limited else {
            audit.record(app: app, operation: .expand, outcome: .notLimited)
            throw LightboxError(.notLimited, "The limited-library picker is only for apps with limited access (status: \(access.readWrite)).")
        }
        guard promptWaits.enter(app) else { throw tooManyPromptWaits(app) }
        // As for authorization: the reply is sent when the owner finishes, from outside the handler.
        let answer: @Sendable (PromptCenter.Outcome) -> Void = { [self] outcome in
            promptWaits.leave(app)
            switch outcome {
            case .selection(let added):
                responder.succeed(LimitedLibraryPickerResponse(added: added))
            case .withdrawn(let reason):
                responder.fail(LightboxError(.cancelled, reason))
            default:
                responder.fail(LightboxError(.timeout, "The owner did not finish the limited-library picker within \(configuration.promptTimeout); nothing changed."))
            }
        }
        let prompt: OwnerPrompt
        do {
            prompt = try await openLimitedLibraryPrompt(app: app, selection: access.selection, then: answer)
        } catch {
            promptWaits.leave(app)
            throw error
        }
        responder.event(PromptShown(prompt: prompt.prompt))
    }

    func openLimitedLibraryPrompt(app: String, selection: [String],
                                  then callback: (@Sendable (PromptCenter.Outcome) -> Void)? = nil) async throws -> OwnerPrompt {
        let name = try await registry.app(withID: app)?.name ?? app
        return await prompts.open(kind: .limitedLibrary, app: app, appName: name, level: .readWrite, usageDescription: nil,
                                  selection: selection, then: callback)
    }

    func answerPrompt(_ answer: AnswerPromptRequest) async throws {
        guard let prompt = await prompts.prompt(answer.prompt) else {
            throw LightboxError(.notFound, "No open prompt \(answer.prompt); it may have been answered or timed out.")
        }
        switch prompt.kind {
        case .deleteAssets:
            try await answerDeletePrompt(prompt, answer.answer)
        case .authorization:
            let level = prompt.level ?? .readWrite
            guard let status = AccessPolicy.status(for: answer.answer, level: level) else {
                let choices = level == .readWrite ? "full, limited or deny" : "allow or deny"
                throw LightboxError(.badRequest, "A \(level) prompt takes \(choices).")
            }
            // Only while still notDetermined: the owner's settings may have answered meanwhile.
            var update = AuthorizationStore.Update(onlyWhileNotDetermined: level)
            if level == .readWrite { update.readWrite = status } else { update.addOnly = status }
            if status == .limited { update.selection = answer.selection ?? [] }
            let app = prompt.app, chosen = answer.selection?.count ?? 0
            await publish(try await store.apply(update, to: app) { applied in
                AuditEntry(app: app, operation: .prompt(level), assetCount: chosen, outcome: .status(applied.access.status(level)), at: Date())
            })
            let final = try await store.access(of: prompt.app, includingSelection: false).status(level)
            await prompts.resolve(prompt.prompt, with: .status(final))
        case .limitedLibrary:
            guard answer.answer == .done else {
                throw LightboxError(.badRequest, "The limited-library picker takes done with the whole new selection.")
            }
            let before = try await store.access(of: prompt.app)
            guard before.readWrite == .limited else {
                await prompts.resolve(prompt.prompt, with: .selection(added: []))
                throw LightboxError(.notLimited, "\(prompt.app) no longer has limited access; nothing changed.")
            }
            let app = prompt.app, chosen = answer.selection?.count ?? 0
            let changes = try await store.apply(.init(selection: answer.selection ?? before.selection), to: app) { applied in
                AuditEntry(app: app, operation: .expand, assetCount: applied.changes.flatMap(\.added).count, outcome: .selection(count: chosen),
                           at: Date())
            }
            await publish(changes)
            let added = changes.flatMap(\.added)
            await prompts.resolve(prompt.prompt, with: .selection(added: added))
        }
    }

    // MARK: Settings

    func setAccess(_ body: SetAccessRequest, _ responder: Responder) async throws {
        guard let manifest = try await registry.app(withID: body.app) else {
            throw LightboxError(.notFound, "No app \(body.app) is registered; see lightbox app list.")
        }
        let app = body.app
        let auditLine: AuthorizationStore.AuditLine = { applied in
            AuditEntry(app: app, operation: .settings, assetCount: applied.selectionCount,
                       outcome: .settings(readWrite: applied.access.readWrite, addOnly: applied.access.addOnly), at: Date())
        }
        var changes: [AuthorizationChange]
        if body.reset == true {
            changes = try await store.reset(app, auditLine: auditLine)
        } else {
            var update = AuthorizationStore.Update()
            update.readWrite = body.readWrite.map(AccessPolicy.status(for:))
            update.addOnly = body.addOnly.map(AccessPolicy.status(for:))
            update.selection = body.selection
            changes = try await store.apply(update, to: app, auditLine: auditLine)
        }
        await publish(changes)
        let access = try await appAccess(manifest)
        responder.succeed(SetAccessResponse(access: access, token: try await store.latestToken(of: body.app)))
    }

    func accessDetail(of app: String) async throws -> AccessDetail {
        guard let manifest = try await registry.app(withID: app) else {
            throw LightboxError(.notFound, "No app \(app) is registered; see lightbox app list.")
        }
        let access = try await store.access(of: app)
        return AccessDetail(access: try await appAccess(manifest), usageReadWrite: manifest.usageReadWrite,
                            usageAddOnly: manifest.usageAddOnly, selection: access.selection)
    }

    func appAccess(_ manifest: AppManifest) async throws -> AppAccess {
        let access = try await store.access(of: manifest.id, includingSelection: false)
        return AppAccess(app: manifest.id, name: manifest.name, readWrite: access.readWrite, addOnly: access.addOnly,
                         selectionCount: try await store.selectionCount(of: manifest.id))
    }

    func publish(_ changes: [AuthorizationChange]) async {
        guard !changes.isEmpty else { return }
        for change in changes {
            logger.info("access changed", metadata: ["app": "\(change.app)", "level": "\(change.level)", "status": "\(change.status)",
                                                     "added": "\(change.added.count)", "removed": "\(change.removed.count)"])
        }
        await broadcaster.publish(changes)
        // In force on the picker before whoever made the change is answered.
        await followers.announce(Set(changes.map(\.app)))
    }
}
