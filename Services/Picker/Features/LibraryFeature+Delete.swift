import Foundation
import LightboxProtocol
import LightboxTransport

/// Deleting assets. An app may delete what it may see (everything when authorized, its selection
/// when limited), and only once the owner confirms on a user surface, as on iOS; the owner deletes
/// without a prompt. Deleting removes the asset's provider tokens with it.
extension LibraryFeature {
    /// How long an app's deletion may wait for the owner (lightbox-auth's prompt timeout ends it first).
    static let deleteConfirmationWait: Duration = .seconds(3600)

    func deleteAssets(_ app: AppID, _ body: DeleteAssetsRequest, _ context: inout RequestContext,
                      _ reply: LaterReply<DeleteAssetsResponse>) async throws {
        let assets = try body.validatedAssets()
        let view = try await access.view(.delete, for: app, on: context, assetCount: assets.count)
        guard view.isAllowed else { throw LightboxError(.notAuthorized, view.decision.reason ?? "This app may not delete assets.") }
        let found = try await catalog.assets(try await view.visible(assets))
        if let unseen = assets.first(where: { found[$0] == nil }) {
            throw LightboxError(.notFound, "No asset \(unseen) is visible to this app.", details: ["asset": unseen])
        }
        let auth = try auth.connected()
        // The answer comes when the owner gives it; the handler's slot is free meanwhile.
        Task { [self] in
            do {
                var confirmation: DeleteConfirmation?
                for try await answer in auth.send(.confirmDelete, DeleteConfirmationRequest(app: app.rawValue, assets: assets),
                                                 timeout: Self.deleteConfirmationWait) {
                    if answer.status == .event, let shown = try? answer.body(PromptShown.self) { reply.event(shown) }
                    if answer.status == .ok { confirmation = try answer.body(DeleteConfirmation.self) }
                }
                guard confirmation?.allowed == true else {
                    reply.fail(LightboxError(.cancelled, "The owner did not allow the deletion; nothing was deleted."),
                               audit: AuditFacts(.declined, assetCount: assets.count))
                    return
                }
                let deleted = try await catalog.remove(assets)
                logger.info("deleted assets", metadata: ["app": "\(app)", "count": "\(deleted.count)"])
                reply.succeed(DeleteAssetsResponse(deleted: deleted), audit: AuditFacts(.deleted, assetCount: deleted.count))
            } catch {
                reply.fail(LightboxError(converting: error, fallback: "Deleting failed; see lightbox-picker's log."))
            }
        }
    }
}

extension DeleteAssetsRequest {
    /// The assets named, when there are 1 to 1000 different ones.
    func validatedAssets() throws(LightboxError) -> [String] {
        guard !assets.isEmpty, assets.count <= 1000, Set(assets).count == assets.count else {
            throw LightboxError(.badRequest, "Name 1 to 1000 different assets to delete.")
        }
        return assets
    }
}
