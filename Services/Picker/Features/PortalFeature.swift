import Foundation
import LightboxProtocol
import LightboxTransport
import Logging
import Synchronization

/// What lightbox-portal may do on the picker for the desktop apps it names: file a pick, load its
/// items, withdraw it when the app closes its request, and hear when the owner revokes an app.
/// Each call acts as the app `portal:<app id>` (`DesktopAppID.filedAs`): the pick session, its
/// tokens and the audit lines are that app's, so the owner's sheet, privacy and activity pages treat
/// it as any other app. Only lightbox-portal's key gets here (the table admits `Portal` callers).
struct PortalFeature: Sendable {
    let picks: PickFeature
    let provider: ProviderFeature
    let revocations: PortalRevocations
    let logger: Logger

    func register(in table: inout OperationTable) {
        table.later(Operations.portalPick) { _, body, context, reply in try await portalPick(body, &context, reply) }
        table.streaming(Operations.portalLoad) { _, body, context in try await portalLoad(body, &context) }
        table.on(Operations.portalCancel) { _, body, _ in try await portalCancel(body) }
        table.later(Operations.portalRevocations) { _, _, _, reply in revocations.add(reply) }
    }

    func portalPick(_ body: PortalPickRequest, _ context: inout RequestContext, _ reply: LaterReply<PickResponse>) async throws {
        let app = try DesktopAppID(validating: body.app)
        context.attribute(to: app.filedAs)
        if let name = body.appName.flatMap(DesktopAppID.displayName) { await picks.remember(name: name, of: app.filedAs) }
        try await picks.startPick(AppID(app.filedAs), PickRequest(configuration: body.configuration), &context, reply.attributed(to: app.filedAs))
    }

    func portalLoad(_ body: PortalLoadRequest, _ context: inout RequestContext) async throws -> Streamed<StreamCompletion> {
        let app = try DesktopAppID(validating: body.app)
        context.attribute(to: app.filedAs)
        return try await provider.load(AppID(app.filedAs), body.load, &context)
    }

    /// The app closed its request before the owner answered: the pick leaves the sheet and its
    /// request ends with no results, as when the owner cancels.
    func portalCancel(_ body: PortalCancelRequest) async throws -> Empty {
        let app = try DesktopAppID(validating: body.app)
        let withdrawn = try await picks.cancel(body.pick, filedBy: app.filedAs)
        logger.info("pick withdrawn by the desktop app", metadata: ["pick": "\(withdrawn.id)", "app": "\(withdrawn.app)"])
        return Empty()
    }
}

/// lightbox-portal's open `portal.revocations` requests, told when the owner revokes a desktop app's
/// items (`owner.revoke` with `portal:<app id>`), so the portal removes the files it delivered.
final class PortalRevocations: Sendable {
    private let watchers = Mutex<[UUID: LaterReply<Empty>]>([:])

    func add(_ reply: LaterReply<Empty>) {
        watchers.withLock { $0[UUID()] = reply }
    }

    /// Tells every connected watcher; forgets those whose connection has gone.
    func announce(_ app: DesktopAppID) {
        let connected = watchers.withLock { watchers in
            watchers = watchers.filter { $0.value.isConnected }
            return Array(watchers.values)
        }
        for watcher in connected { watcher.event(PortalAppRevoked(app: app.rawValue)) }
    }
}
