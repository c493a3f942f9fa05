import Foundation
import LightboxProtocol
import LightboxTransport

/// Deleting assets. An app may delete what it may see (everything when authorized, its selection
/// when limited), and only once the owner confirms on a user surface, as on iOS; the owner deletes
/// without a prompt. Deleting removes the asset's provider tokens with it.
extension PickerService {
    /// How long an app's deletion may wait for the owner (lightbox-auth's prompt timeout ends it first).
    static let deleteConfirmationWait: Duration = .seconds(3600)

    func deleteAssets(_ request: IncomingRequest, _ responder: Responder) async throws {
        let app = try request.requireApp()
        let assets = try validated(try request.body(DeleteAssetsRequest.self).assets)
        let decision = try await decide(.delete, for: app, on: request, assetCount: assets.count)
        guard decision.allowed else { throw LightboxError(.notAuthorized, decision.reason ?? "This app may not delete assets.") }
        let found = try await catalog.assets(try await visible(assets, for: app, in: decision))
        if let unseen = assets.first(where: { found[$0] == nil }) {
            throw LightboxError(.notFound, "No asset \(unseen) is visible to this app.", details: ["asset": unseen])
        }
        let auth = try authConnection()
        // The answer comes when the owner gives it; the handler's slot is free meanwhile.
        Task { [self] in
            do {
                var confirmation: DeleteConfirmation?
                for try await reply in auth.send(.confirmDelete, DeleteConfirmationRequest(app: app, assets: assets),
                                                 timeout: Self.deleteConfirmationWait) {
                    if reply.status == .event, let shown = try? reply.body(PromptShown.self) { responder.event(shown) }
                    if reply.status == .ok { confirmation = try reply.body(DeleteConfirmation.self) }
                }
                guard confirmation?.allowed == true else {
                    auditReporter.record(app: app, operation: .delete, assetCount: assets.count, outcome: .declined)
                    responder.fail(LightboxError(.cancelled, "The owner did not allow the deletion; nothing was deleted."))
                    return
                }
                let deleted = try await catalog.remove(assets)
                auditReporter.record(app: app, operation: .delete, assetCount: deleted.count, outcome: .deleted)
                logger.info("deleted assets", metadata: ["app": "\(app)", "count": "\(deleted.count)"])
                responder.succeed(DeleteAssetsResponse(deleted: deleted))
            } catch let error as LightboxError {
                responder.fail(error)
            } catch {
                responder.fail(LightboxError(.internal, "Deleting failed: \(error)"))
            }
        }
    }

    func ownerDelete(_ request: IncomingRequest, _ responder: Responder) async throws {
        let assets = try validated(try request.body(DeleteAssetsRequest.self).assets)
        responder.succeed(DeleteAssetsResponse(deleted: try await catalog.remove(assets)))
    }

    private func validated(_ assets: [String]) throws(LightboxError) -> [String] {
        guard !assets.isEmpty, assets.count <= 1000, Set(assets).count == assets.count else {
            throw LightboxError(.badRequest, "Name 1 to 1000 different assets to delete.")
        }
        return assets
    }
}
