import Foundation
import LightboxProtocol
import LightboxTransport
import Logging

/// The owner's prompts: the list the owner's surfaces show, the answers, and the deletions the
/// picker asks the owner to confirm.
struct PromptsFeature: Sendable {
    let store: any AuthStorage
    let registry: AppRegistry
    let prompts: PromptCenter
    let promptWaits: PerAppLimit
    let promptTimeout: Duration
    let accessChanges: AccessChanges
    let grantTerms: GrantTerms
    let logger: Logger

    func register(in table: inout OperationTable) {
        table.on(Operations.prompts) { _, body, _ in await listPrompts(body) }
        table.on(Operations.answerPrompt) { _, body, _ in try await answerPrompt(body); return Empty() }
        table.later(Operations.confirmDelete) { _, body, context, reply in try await confirmDelete(body, context, reply) }
    }

    func listPrompts(_ body: PromptsRequest) async -> PromptsResponse {
        await prompts.waitForPrompts(upTo: .milliseconds(min(max(body.waitMs ?? 0, 0), 60_000)))
        return PromptsResponse(prompts: await prompts.all())
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
            if status == .limited {
                update.selection = answer.selection ?? []
                update.albums = try AuthorizationStore.validatedAlbums(answer.albums) ?? []
            }
            update.term = try answer.term.map(GrantTerms.validated)
            let app = prompt.app, chosen = answer.selection?.count ?? 0
            // The location first: the status change announced next makes the picker read both.
            if level == .readWrite {
                try await storeLocation(answering: answer, to: prompt)
            }
            await accessChanges.publish(try await store.apply(update, to: app) { applied in
                AuditEntry(app: app, operation: .prompt(level), assetCount: chosen, outcome: .status(applied.access.status(level)), at: Date())
            })
            if let term = update.term, status.isGrant { await grantTerms.granted(until: term.until) }
            let final = try await store.access(of: prompt.app, includingSelection: false).status(level)
            guard level == .readWrite else {
                await prompts.resolve(prompt.prompt, with: .status(final))
                return
            }
            await prompts.resolve(prompt.prompt, with: .access(final, location: try await effectiveLocation(of: app, readWrite: final)))
        case .location:
            guard answer.answer == .allow || answer.answer == .deny else {
                throw LightboxError(.badRequest, "A location prompt takes allow (with the location given) or deny.")
            }
            try await storeLocation(answering: answer, to: prompt)
            await accessChanges.announceLocation(of: prompt.app)
            let readWrite = try await store.access(of: prompt.app, includingSelection: false).readWrite
            await prompts.resolve(prompt.prompt, with: .access(readWrite, location: try await effectiveLocation(of: prompt.app, readWrite: readWrite)))
        case .limitedLibrary:
            guard answer.answer == .done else {
                throw LightboxError(.badRequest, "The limited-library picker takes done with the whole new selection.")
            }
            let before = try await store.access(of: prompt.app)
            guard before.readWrite == .limited else {
                await prompts.resolve(prompt.prompt, with: .selection(added: [], addedAlbums: []))
                throw LightboxError(.notLimited, "\(prompt.app) no longer has limited access; nothing changed.")
            }
            let app = prompt.app, chosen = answer.selection?.count ?? 0
            var update = AuthorizationStore.Update(selection: answer.selection ?? before.selection)
            update.albums = try AuthorizationStore.validatedAlbums(answer.albums)
            let changes = try await store.apply(update, to: app) { applied in
                AuditEntry(app: app, operation: .expand, assetCount: applied.changes.flatMap(\.added).count, outcome: .selection(count: chosen),
                           at: Date())
            }
            await accessChanges.publish(changes)
            await prompts.resolve(prompt.prompt, with: .selection(added: changes.flatMap(\.added),
                                                                  addedAlbums: changes.flatMap { $0.addedAlbums ?? [] }))
        }
    }

    /// Stores the location the owner's answer gives for what `prompt` asked (none when it asked
    /// none), with its audit line.
    func storeLocation(answering answer: AnswerPromptRequest, to prompt: OwnerPrompt) async throws {
        let asked = prompt.location ?? LocationAccess.none
        let granted = AccessPolicy.location(answering: answer.answer, asked: asked, chosen: answer.location)
        // A prompt that asked for none leaves nothing to record, unless a location given before stays.
        if asked == .none, try await store.location(of: prompt.app).granted == .none { return }
        try await store.setLocation(of: prompt.app, granted: granted, requested: asked,
                                    auditLine: AuditEntry(app: prompt.app, operation: .locationPrompt, outcome: .location(granted), at: Date()))
    }

    /// The location an app's reads deliver now.
    func effectiveLocation(of app: String, readWrite: AuthorizationStatus) async throws -> LocationAccess {
        AccessPolicy.location(granted: try await store.location(of: app).granted, readWrite: readWrite)
    }

    func confirmDelete(_ body: DeleteConfirmationRequest, _ context: RequestContext, _ reply: LaterReply<DeleteConfirmation>) async throws {
        guard let manifest = try await registry.app(withID: body.app) else {
            throw LightboxError(.notFound, "App \(body.app) is no longer registered.")
        }
        guard promptWaits.enter(body.app) else { throw promptWaits.refusal(of: body.app) }
        let timeout = promptTimeout
        // Registered with the prompt in one step, so an answer cannot come before anyone listens.
        let answer: @Sendable (PromptCenter.Outcome) -> Void = { [promptWaits] outcome in
            promptWaits.leave(body.app)
            switch outcome {
            case .status(let status):
                let allowed = status == .authorized
                reply.succeed(DeleteConfirmation(allowed: allowed),
                              audit: AuditFacts(allowed ? .allowed : .declined, assetCount: body.assets.count, app: body.app))
            case .withdrawn(let reason):
                reply.fail(LightboxError(.cancelled, reason))
            default:
                reply.fail(LightboxError(.timeout, "The owner did not answer within \(timeout); nothing was deleted."),
                           audit: AuditFacts(.timeout, assetCount: body.assets.count, app: body.app))
            }
        }
        let prompt = await prompts.open(kind: .deleteAssets, app: body.app, appName: manifest.name, level: nil,
                                        usageDescription: nil, selection: body.assets, then: answer)
        reply.event(PromptShown(prompt: prompt.prompt))
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

extension PerAppLimit {
    /// The refusal of one more request waiting for the owner.
    func refusal(of app: String) -> LightboxError {
        LightboxError(.busy, "App \(app) already has \(limit) requests waiting for the owner, its limit; wait for the owner to answer before asking again.")
    }
}
