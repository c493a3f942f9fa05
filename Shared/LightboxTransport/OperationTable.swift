import LightboxProtocol
import Logging

/// One service's operations, built from their declarations (`Operations`): for each, how its caller
/// is admitted, its body decoded, its handler run, its reply sent and its audit line written. Every
/// request goes through `handle`, so a handler never checks its caller, decodes its own body,
/// converts its own errors or writes its own audit line.
///
/// Three kinds of handler, by how the final reply leaves:
/// - `on`: the handler returns the reply;
/// - `streaming`: the handler streams (`RequestContext.stream`), whose end is the final reply, or returns one;
/// - `later`: the handler hands a `LaterReply` to whoever answers when the owner does (picks,
///   prompts), or keeps it to send events (watches); it holds no handler slot meanwhile.
public struct OperationTable: Sendable {
    typealias Run = @Sendable (IncomingRequest, Responder, (any OperationAuditor)?) async throws -> Void

    struct Entry: Sendable {
        let declaration: OperationDeclaration
        let run: Run
    }

    public let serviceName: String
    private let auditor: (any OperationAuditor)?
    private var entries: [OperationName: Entry] = [:]

    public init(serviceName: String, auditor: (any OperationAuditor)?) {
        self.serviceName = serviceName
        self.auditor = auditor
    }

    /// The declarations served, for tests and documentation.
    public var declarations: [OperationDeclaration] { entries.values.map(\.declaration) }

    /// Runs the request's operation; any error becomes its wire form in `Responder.answering`.
    public func handle(_ request: IncomingRequest, _ responder: Responder) async {
        await responder.answering(request, service: serviceName) {
            guard let entry = entries[request.op] else {
                throw LightboxError(.unknownOp, "\(serviceName) has no operation \"\(request.op)\".")
            }
            try await entry.run(request, responder, auditor)
        }
    }

    /// Serves `operation` with a handler that returns its reply.
    public mutating func on<Caller, Body, Reply>(
        _ operation: Operation<Caller, Body, Reply>,
        _ handler: @escaping @Sendable (Caller, Body, inout RequestContext) async throws -> Reply
    ) {
        add(operation) { caller, body, context in
            let reply = try await handler(caller, body, &context)
            context.writeAudit()
            context.responder.send(.ok, reply, attachments: context.replyAttachments)
        }
    }

    /// Serves `operation` with a handler that streams its answer, or returns a reply instead.
    public mutating func streaming<Caller, Body, Reply>(
        _ operation: Operation<Caller, Body, Reply>,
        _ handler: @escaping @Sendable (Caller, Body, inout RequestContext) async throws -> Streamed<Reply>
    ) {
        add(operation) { caller, body, context in
            let answer = try await handler(caller, body, &context)
            context.writeAudit()
            if case .reply(let reply) = answer { context.responder.succeed(reply) }
        }
    }

    /// Serves `operation` with a handler whose final reply is sent later, through `LaterReply`.
    public mutating func later<Caller, Body, Reply>(
        _ operation: Operation<Caller, Body, Reply>,
        _ handler: @escaping @Sendable (Caller, Body, inout RequestContext, LaterReply<Reply>) async throws -> Void
    ) {
        add(operation) { caller, body, context in
            let reply = LaterReply<Reply>(context: context)
            try await handler(caller, body, &context, reply)
            context.writeAudit()
        }
    }

    private mutating func add<Caller, Body, Reply>(
        _ operation: Operation<Caller, Body, Reply>,
        _ serve: @escaping @Sendable (Caller, Body, inout RequestContext) async throws -> Void
    ) {
        precondition(entries[operation.name] == nil, "\(operation.name) is served twice")
        let declaration = operation.declaration
        entries[operation.name] = Entry(declaration: declaration) { request, responder, auditor in
            guard let caller = Caller(request.principal) else { throw Caller.refusal(of: operation.name) }
            let body = try request.body(Body.self)
            var context = RequestContext(request: request, responder: responder, declaration: declaration,
                                         caller: (caller as? AppID)?.rawValue, auditor: auditor)
            do {
                try await serve(caller, body, &context)
            } catch {
                // A refusal the handler audited (a missing usage description, a token of another app).
                context.writeAudit()
                throw error
            }
        }
    }
}

/// How a streaming handler ended: it streamed (the stream sent the final reply), or it answers
/// with a reply instead (a movie in the cloud).
public enum Streamed<Reply: Codable & Sendable>: Sendable {
    case stream(StreamOutcome)
    case reply(Reply)
}
