import Foundation
import LightboxProtocol
import LightboxTransport
import Logging

/// What apps ask of their own authorization: status per access level, the prompt for it, the
/// limited-library picker, and the changes to it (a watch, or what changed since a token); and
/// what the picker reports on an app's behalf (a launch, an asset it created).
struct AuthorizationFeature: Sendable {
    let store: any AuthStorage
    let registry: AppRegistry
    let prompts: PromptCenter
    let promptWaits: PerAppLimit
    let promptTimeout: Duration
    let broadcaster: ChangeBroadcaster
    let launches: LaunchTracker
    let accessChanges: AccessChanges
    let logger: Logger

    func register(in table: inout OperationTable) {
        table.on(Operations.authorizationStatus) { try await authorizationStatus($0, $1, &$2) }
        table.later(Operations.requestAuthorization) { try await requestAuthorization($0, $1, &$2, $3) }
        table.later(Operations.presentLimitedLibraryPicker) { app, _, context, reply in
            try await presentLimitedLibraryPicker(app, &context, reply)
        }
        table.later(Operations.watch) { try await watch($0, $1, $3) }
        table.on(Operations.changes) { app, body, _ in try await changes(app, body) }
        table.later(Operations.appLaunched) { _, body, _, reply in try await appLaunched(body, reply) }
        table.on(Operations.assetCreated) { _, body, context in try await assetCreated(body, &context) }
    }

    func authorizationStatus(_ app: AppID, _ body: StatusRequest, _ context: inout RequestContext) async throws -> StatusResponse {
        let level = body.level
        let access = try await store.access(of: app.rawValue, includingSelection: false)
        let status = level.map(access.status) ?? AccessPolicy.legacyStatus(readWrite: access.readWrite)
        context.audit(AuditFacts(.status(status), detail: AuditOperation.status(level).detail))
        guard level != .addOnly else { return StatusResponse(level: level, status: status) }
        return StatusResponse(level: level, status: status, location: try await location(of: app.rawValue, readWrite: access.readWrite))
    }

    /// The location `app`'s library reads deliver (read only when it may read at all).
    func location(of app: String, readWrite: AuthorizationStatus) async throws -> LocationAccess {
        guard AccessPolicy.location(granted: .precise, readWrite: readWrite) != .none else { return .none }
        return AccessPolicy.location(granted: try await store.location(of: app).granted, readWrite: readWrite)
    }

    func watch(_ app: AppID, _ body: ChangesRequest, _ reply: LaterReply<Empty>) async throws {
        // Registered before the replay, so no change falls between the two; one that lands in
        // both comes twice with the same token, and clients drop tokens they have seen.
        await broadcaster.add(reply.responder, for: app.rawValue)
        if let since = body.since {
            for change in try await store.changes(of: app.rawValue, since: since) { reply.event(change) }
        }
    }

    func changes(_ app: AppID, _ body: ChangesRequest) async throws -> ChangesResponse {
        let since = body.since ?? 0
        let changes = try await store.changes(of: app.rawValue, since: since)
        let latest = try await store.latestToken(of: app.rawValue)
        return ChangesResponse(changes: changes, token: max(since, latest))
    }

    func requestAuthorization(_ caller: AppID, _ body: AuthorizationRequest, _ context: inout RequestContext,
                              _ reply: LaterReply<StatusResponse>) async throws {
        let app = caller.rawValue, level = body.level
        let asked: LocationAccess = level == .readWrite ? body.location ?? .none : .none
        let status = try await store.access(of: app).status(level)
        // Only while notDetermined: afterwards the stored answer stands until the owner changes it.
        guard status == .notDetermined else {
            guard level == .readWrite else {
                reply.succeed(StatusResponse(level: level, status: status), audit: AuditFacts(.stored(status), detail: level.rawValue))
                return
            }
            // A location the app never asked for with access it has: asked once, on its own.
            let setting = try await store.location(of: app)
            if AccessPolicy.promptsForLocation(asked: asked, requested: setting.requested, readWrite: status) {
                try await requestLocation(asked, app: app, reply)
                return
            }
            reply.succeed(StatusResponse(level: level, status: status, location: AccessPolicy.location(granted: setting.granted, readWrite: status)),
                          audit: AuditFacts(.stored(status), detail: level.rawValue))
            return
        }
        guard let manifest = try await registry.app(withID: app) else {
            throw LightboxError(.notFound, "App \(app) is no longer registered.")
        }
        let usage = level == .readWrite ? manifest.usageReadWrite : manifest.usageAddOnly
        guard let usage, !usage.trimmingCharacters(in: .whitespaces).isEmpty else {
            context.audit(AuditFacts(.missingUsageDescription, detail: level.rawValue))
            let flag = level == .readWrite ? "--usage-read-write" : "--usage-add-only"
            throw LightboxError(.missingUsageDescription,
                                "\(manifest.name) must say why it wants \(level) access before it may ask: register it again with \(flag) \"…\".")
        }
        guard promptWaits.enter(app) else { throw promptWaits.refusal(of: app) }
        // The handler returns once the prompt is open; the answer (or the time-out) is sent when it
        // comes, holding no handler slot.
        let prompt = await prompts.open(kind: .authorization, app: app, appName: manifest.name, level: level,
                                        usageDescription: usage, selection: [], location: asked) { [self] outcome in
            promptWaits.leave(app)
            switch outcome {
            case .status(let answered):
                reply.succeed(StatusResponse(level: level, status: answered))
            case .access(let answered, let location):
                reply.succeed(StatusResponse(level: level, status: answered, location: level == .readWrite ? location : nil))
            case .withdrawn(let reason):
                reply.fail(LightboxError(.cancelled, reason))
            default:
                reply.fail(LightboxError(.timeout, "The owner did not answer within \(promptTimeout); the status stays notDetermined. Ask again later."),
                           audit: AuditFacts(.timeout, detail: level.rawValue))
            }
        }
        reply.event(PromptShown(prompt: prompt.prompt))
        logger.info("prompting the owner", metadata: ["app": "\(app)", "level": "\(level)", "prompt": "\(prompt.prompt)"])
    }

    /// Asks the owner whether an app with library access may have the location `asked` with it;
    /// the reply is the status and the location it has once the owner answers.
    func requestLocation(_ asked: LocationAccess, app: String, _ reply: LaterReply<StatusResponse>) async throws {
        guard let manifest = try await registry.app(withID: app) else {
            throw LightboxError(.notFound, "App \(app) is no longer registered.")
        }
        guard promptWaits.enter(app) else { throw promptWaits.refusal(of: app) }
        let prompt = await prompts.open(kind: .location, app: app, appName: manifest.name, level: .readWrite,
                                        usageDescription: manifest.usageReadWrite, selection: [], location: asked) { [self] outcome in
            promptWaits.leave(app)
            switch outcome {
            case .access(let answered, let location):
                reply.succeed(StatusResponse(level: .readWrite, status: answered, location: location))
            case .withdrawn(let reason):
                reply.fail(LightboxError(.cancelled, reason))
            default:
                reply.fail(LightboxError(.timeout, "The owner did not answer within \(promptTimeout); the app's location stays as it was. Ask again later."),
                           audit: AuditFacts(.timeout, detail: AccessLevel.readWrite.rawValue))
            }
        }
        reply.event(PromptShown(prompt: prompt.prompt))
        logger.info("asking the owner for a location", metadata: ["app": "\(app)", "location": "\(asked)", "prompt": "\(prompt.prompt)"])
    }

    func presentLimitedLibraryPicker(_ caller: AppID, _ context: inout RequestContext,
                                     _ reply: LaterReply<LimitedLibraryPickerResponse>) async throws {
        let app = caller.rawValue
        let access = try await store.access(of: app)
        guard access.readWrite == .limited else {
            context.audit(.notLimited)
            throw LightboxError(.notLimited, "The limited-library picker is only for apps with limited access (status: \(access.readWrite)).")
        }
        guard promptWaits.enter(app) else { throw promptWaits.refusal(of: app) }
        // As for authorization: the reply is sent when the owner finishes, from outside the handler.
        let answer: @Sendable (PromptCenter.Outcome) -> Void = { [self] outcome in
            promptWaits.leave(app)
            switch outcome {
            case .selection(let added, let addedAlbums):
                reply.succeed(LimitedLibraryPickerResponse(added: added, addedAlbums: addedAlbums.isEmpty ? nil : addedAlbums))
            case .withdrawn(let reason):
                reply.fail(LightboxError(.cancelled, reason))
            default:
                reply.fail(LightboxError(.timeout, "The owner did not finish the limited-library picker within \(promptTimeout); nothing changed."))
            }
        }
        let prompt: OwnerPrompt
        do {
            prompt = try await openLimitedLibraryPrompt(app: app, access: access, then: answer)
        } catch {
            promptWaits.leave(app)
            throw error
        }
        reply.event(PromptShown(prompt: prompt.prompt))
    }

    /// The limited-library picker for `app`, its current selection and albums preselected.
    func openLimitedLibraryPrompt(app: String, access: AuthorizationStore.Access, onLaunch: Bool = false,
                                  then callback: (@Sendable (PromptCenter.Outcome) -> Void)? = nil) async throws -> OwnerPrompt {
        let name = try await registry.app(withID: app)?.name ?? app
        return await prompts.open(kind: .limitedLibrary, app: app, appName: name, level: .readWrite, usageDescription: nil,
                                  selection: access.selection, albums: access.albums, onLaunch: onLaunch, then: callback)
    }

    /// `auth.launch`: a limited app's first library access in each launch raises the limited-library picker.
    func appLaunched(_ launch: AppLaunch, _ reply: LaterReply<Empty>) async throws {
        reply.succeed(Empty())
        let status = try await store.access(of: launch.app, includingSelection: false).readWrite
        if status == .limited, await launches.isFirstAccess(launch),
           try await registry.app(withID: launch.app)?.preventAutomaticLimitedAccessAlert == false {
            _ = try await openLimitedLibraryPrompt(app: launch.app, access: try await store.access(of: launch.app), onLaunch: true)
        }
    }

    func assetCreated(_ body: AssetCreatedRequest, _ context: inout RequestContext) async throws -> Empty {
        let access = try await store.access(of: body.app, includingSelection: false)
        // Assets a limited app creates join its selection.
        if access.readWrite == .limited {
            await accessChanges.publish(try await store.apply(.init(addedAssets: [body.asset]), to: body.app))
        }
        context.audit(AuditFacts(.created, assetCount: 1, asset: body.asset, app: body.app))
        return Empty()
    }
}
