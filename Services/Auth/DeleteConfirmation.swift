import Foundation
import LightboxProtocol
import LightboxTransport

/// An app's deletion waits for the owner, as on iOS: the picker asks here, the owner sees a
/// `deleteAssets` prompt on a user surface and answers allow or deny. The handler returns at once;
/// the answer is sent when the owner gives it (or the prompt times out), so waiting for the owner
/// holds no handler slot.
extension AuthService {
    func confirmDelete(_ request: IncomingRequest, _ responder: Responder) async throws {
        let body = try request.body(DeleteConfirmationRequest.self)
        guard let manifest = try await registry.app(withID: body.app) else {
            throw LightboxError(.notFound, "App \(body.app) is no longer registered.")
        }
        guard promptWaits.enter(body.app) else { throw tooManyPromptWaits(body.app) }
        let audit = self.audit
        let timeout = configuration.promptTimeout
        // Registered with the prompt in one step, so an answer cannot come before anyone listens.
        let answer: @Sendable (PromptCenter.Outcome) -> Void = { [promptWaits] outcome in
            promptWaits.leave(body.app)
            switch outcome {
            case .status(let status):
                let allowed = status == .authorized
                responder.succeed(DeleteConfirmation(allowed: allowed))
                audit.record(app: body.app, operation: .deleteConfirmation, assetCount: body.assets.count,
                             outcome: allowed ? .allowed : .declined)
            case .withdrawn(let reason):
                responder.fail(LightboxError(.cancelled, reason))
            default:
                responder.fail(LightboxError(.timeout, "The owner did not answer within \(timeout); nothing was deleted."))
                audit.record(app: body.app, operation: .deleteConfirmation, assetCount: body.assets.count, outcome: .timeout)
            }
        }
        let prompt = await prompts.open(kind: .deleteAssets, app: body.app, appName: manifest.name, level: nil,
                                        usageDescription: nil, selection: body.assets, then: answer)
        responder.event(PromptShown(prompt: prompt.prompt))
        logger.info("asking the owner to confirm a deletion", metadata: ["app": "\(body.app)", "assets": "\(body.assets.count)"])
    }

    /// The owner's answer to a `deleteAssets` prompt: allow or deny.
    func answerDeletePrompt(_ prompt: OwnerPrompt, _ answer: PromptAnswer) async throws {
        guard answer == .allow || answer == .deny else {
            throw LightboxError(.badRequest, "A delete confirmation takes allow or deny.")
        }
        await prompts.resolve(prompt.prompt, with: .status(answer == .allow ? .authorized : .denied))
    }
}
