import Foundation
import LightboxProtocol
import LightboxTransport
import Media

/// How a library operation learns what lightbox-auth decided for the calling app: the decision
/// (cached while the picker follows auth, and audited), and from it the app's `LibraryView`.
struct LibraryAccess: Sendable {
    let decisions: LibraryDecisions
    let auth: AuthLink
    let auditor: AuditReporter
    let catalog: Catalog

    /// lightbox-auth's decision for this app and action (cached while the picker follows auth), and
    /// its line in the audit trail.
    func decide(_ action: LibraryAction, for app: AppID, on context: RequestContext, assetCount: Int? = nil) async throws -> LibraryDecision {
        try await decide(action, for: app.rawValue, origin: context.request.origin, assetCount: assetCount)
    }

    func decide(_ action: LibraryAction, for app: String, origin: ConnectionLaunch, assetCount: Int? = nil) async throws -> LibraryDecision {
        let decision: LibraryDecision
        do {
            decision = try await decisions.decision(action, for: app, origin: origin, auth: try auth.connected())
        } catch let error as LightboxError where error.code == .timeout {
            throw LightboxError(.timeout, "lightbox-auth did not answer; library access is unavailable until it is back.")
        }
        auditor.record(app: app, operation: .decision(action), assetCount: assetCount ?? 0,
                       outcome: decision.allowed ? .allowed(decision.scope) : .refused(decision.status.rawValue))
        return decision
    }

    /// What `app` may see for `action`, as auth decided it (and audited).
    func view(_ action: LibraryAction, for app: AppID, on context: RequestContext, assetCount: Int? = nil) async throws -> LibraryView {
        LibraryView(app: app.rawValue, decision: try await decide(action, for: app, on: context, assetCount: assetCount),
                    selections: decisions.selections)
    }

    /// What `app` may see for `action`, for a request that came from `origin`.
    func view(_ action: LibraryAction, for app: String, origin: ConnectionLaunch) async throws -> LibraryView {
        LibraryView(app: app, decision: try await decide(action, for: app, origin: origin), selections: decisions.selections)
    }

    /// An asset the app may see through its library access; anything else reads as not found.
    func visibleAsset(_ identifier: String, app: AppID, context: RequestContext) async throws -> AssetRecord {
        try await visible(identifier, app: app, context: context).asset
    }

    /// An asset the app may see through its library access, and what every delivery of it to the
    /// app removes: its location, unless the owner gave the app its location (auth's read decision
    /// says which); anything else reads as not found.
    func visible(_ identifier: String, app: AppID, context: RequestContext) async throws -> (asset: AssetRecord, removal: MetadataRemoval) {
        let decision = try await decide(.read, for: app, on: context, assetCount: 1)
        guard try await LibraryView(app: app.rawValue, decision: decision, selections: decisions.selections).canSee(identifier),
              let asset = try await catalog.asset(identifier) else {
            throw LightboxError(.notFound, "No asset \(identifier) is visible to this app.")
        }
        return (asset, MetadataRemoval(stripping: .none, location: decision.location ?? LocationAccess.none))
    }
}
