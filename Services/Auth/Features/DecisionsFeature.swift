import Foundation
import LightboxProtocol
import LightboxTransport
import Logging

/// lightbox-auth's decisions for the picker: every action's decision for an app, and the stream
/// that tells the picker whose decisions changed (an owner's change is acknowledged once applied).
struct DecisionsFeature: Sendable {
    let store: any AuthStorage
    let followers: DecisionFollowers

    func register(in table: inout OperationTable) {
        table.on(Operations.decisions) { _, body, _ in try await decisions(of: body.app) }
        table.later(Operations.followDecisions) { _, _, _, reply in _ = await followers.add(reply.responder) }
        table.on(Operations.decisionsApplied) { _, body, _ in await followers.confirm(body); return Empty() }
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
        // What reads deliver of where the photos were taken.
        let location = AccessPolicy.location(granted: try await store.location(of: app).granted, readWrite: access.readWrite)
        if location != .none { decisions[LibraryAction.read.rawValue]?.location = location }
        let isLimited = access.readWrite == .limited
        return AppDecisions(app: app, version: version, decisions: decisions, selection: isLimited ? access.selection : [],
                            albums: isLimited && !access.albums.isEmpty ? access.albums : nil)
    }
}
