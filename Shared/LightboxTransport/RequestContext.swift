import Foundation
import LightboxProtocol
import Logging

/// What a handler knows of its request beyond caller and body (the connection, binary frames, the
/// sender's process), and what it may do before its final reply: progress, events, a stream, the
/// audit line's outcome, binary frames for the reply.
public struct RequestContext: Sendable {
    public let request: IncomingRequest
    /// For `progress`/`event` replies and streams; the final reply is the table's.
    public let responder: Responder
    public let declaration: OperationDeclaration
    /// Binary frames sent after the final reply's header (an image, a thumbnail).
    public var replyAttachments: [Data] = []
    /// The calling app, when the caller is one: the audit line's app unless the handler names another.
    private(set) var caller: String?
    let auditor: (any OperationAuditor)?
    private var pendingAudit: AuditFacts?

    init(request: IncomingRequest, responder: Responder, declaration: OperationDeclaration, caller: String?,
         auditor: (any OperationAuditor)?) {
        self.request = request
        self.responder = responder
        self.declaration = declaration
        self.caller = caller
        self.auditor = auditor
    }

    public var id: String { request.id }
    public var logger: Logger { request.logger }
    public var attachments: [Data] { request.attachments }

    /// Files this call's audit lines under `app`: lightbox-portal acts for the desktop app it names
    /// (`portal:org.gnome.Loupe`), which is the app the lines are about.
    public mutating func attribute(to app: String) {
        caller = app
    }

    public func progress<Body: Codable & Sendable>(_ body: Body) { responder.progress(body) }
    public func event<Body: Codable & Sendable>(_ body: Body) { responder.event(body) }

    /// How the call ended, for its audit line (written by the table with the declared operation
    /// once the handler returns or throws). A call that sets none writes none.
    public mutating func audit(_ facts: AuditFacts) {
        pendingAudit = facts
    }

    public mutating func audit(_ outcome: AuditOutcome, assetCount: Int = 0, asset: String? = nil, bytes: Int64? = nil) {
        audit(AuditFacts(outcome, assetCount: assetCount, asset: asset, bytes: bytes))
    }

    mutating func writeAudit() {
        guard let facts = pendingAudit else { return }
        pendingAudit = nil
        record(facts)
    }

    func record(_ facts: AuditFacts) {
        guard let auditor, let family = declaration.audit,
              let app = facts.app ?? caller else { return }
        let operation = AuditOperation(family.family, facts.detail ?? family.detail)
        auditor.record(AuditEntry(app: app, operation: operation, assetCount: facts.assetCount, outcome: facts.outcome, at: Date(),
                                  bytes: facts.bytes, asset: facts.asset))
    }
}

/// One audit line's facts; the operation comes from the declaration.
public struct AuditFacts: Sendable {
    public var outcome: AuditOutcome
    public var assetCount: Int
    public var asset: String?
    public var bytes: Int64?
    /// The detail after the family's colon when the declaration leaves it to the call (`status:readWrite`).
    public var detail: String?
    /// The app the line is about when the caller is not one (a service reporting for an app).
    public var app: String?

    public init(_ outcome: AuditOutcome, assetCount: Int = 0, asset: String? = nil, bytes: Int64? = nil, detail: String? = nil,
                app: String? = nil) {
        self.outcome = outcome
        self.assetCount = assetCount
        self.asset = asset
        self.bytes = bytes
        self.detail = detail
        self.app = app
    }

    /// A stream's end: `completed` with the bytes delivered, or why it stopped.
    public init(_ outcome: StreamOutcome, asset: String) {
        switch outcome {
        case .completed(let bytes): self.init(.completed, assetCount: 1, asset: asset, bytes: bytes)
        case .cancelled: self.init(.cancelled, assetCount: 1, asset: asset)
        case .abandoned: self.init(.abandoned, assetCount: 1, asset: asset)
        case .failed: self.init(.failed, assetCount: 1, asset: asset)
        }
    }
}

/// Where a service's audit lines go: the picker reports them to lightbox-auth, auth writes them.
public protocol OperationAuditor: Sendable {
    func record(_ entry: AuditEntry)
}

/// The final reply of a `later` operation, sent by whoever answers (the owner's choice, a prompt's
/// answer, a time-out), with the operation's audit line. Events and progress may come first.
public struct LaterReply<Reply: Codable & Sendable>: Sendable {
    let context: RequestContext

    init(context: RequestContext) {
        self.context = context
    }

    public var responder: Responder { context.responder }
    public var isConnected: Bool { context.responder.isConnected }

    /// This reply with its audit lines filed under `app` (`RequestContext.attribute(to:)`).
    public func attributed(to app: String) -> LaterReply {
        var context = context
        context.attribute(to: app)
        return LaterReply(context: context)
    }

    public func event<Body: Codable & Sendable>(_ body: Body) { context.responder.event(body) }

    public func succeed(_ reply: Reply, audit facts: AuditFacts? = nil) {
        if let facts { context.record(facts) }
        context.responder.succeed(reply)
    }

    public func fail(_ error: LightboxError, audit facts: AuditFacts? = nil) {
        if let facts { context.record(facts) }
        context.responder.fail(error)
    }
}
