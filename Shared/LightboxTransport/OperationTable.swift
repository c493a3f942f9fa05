import LightboxProtocol
import Logging

/// Who may call an operation. The dispatcher checks it before the handler runs.
public enum RequiredPrincipal: String, Sendable, CaseIterable {
    /// A registered app's key.
    case app
    /// The owner's surfaces (CLI, settings, picker UI).
    case owner
    /// Lightbox's own services.
    case service
    /// Anyone with a registered key (ping, whoami).
    case any

    func admits(_ principal: Principal) -> Bool {
        switch (self, principal) {
        case (.any, _), (.app, .app), (.owner, .owner), (.service, .service): true
        default: false
        }
    }
}

/// One service's operations: for each, the principal it needs and the handler. A new operation
/// cannot forget its check, because the only way to add one is to say who may call it.
public struct OperationTable<Service: Sendable>: Sendable {
    public typealias Handler = @Sendable (Service, IncomingRequest, Responder) async throws -> Void

    public struct Entry: Sendable {
        public let principal: RequiredPrincipal
        let handler: Handler
    }

    public let serviceName: String
    private let entries: [OperationName: Entry]

    public init(serviceName: String, _ entries: [OperationName: Entry]) {
        self.serviceName = serviceName
        self.entries = entries
    }

    /// Every operation and who may call it, for tests and documentation.
    public var requirements: [OperationName: RequiredPrincipal] { entries.mapValues(\.principal) }

    /// Checks the caller against the operation's principal, then runs its handler; errors become replies.
    public func handle(_ service: Service, _ request: IncomingRequest, _ responder: Responder) async {
        await responder.answering(request, service: serviceName) {
            guard let entry = entries[request.op] else {
                throw LightboxError(.unknownOp, "\(serviceName) has no operation \"\(request.op)\".")
            }
            try request.require(entry.principal)
            try await entry.handler(service, request, responder)
        }
    }
}

extension OperationTable.Entry {
    public static func app(_ handler: @escaping OperationTable.Handler) -> Self { .init(principal: .app, handler: handler) }
    public static func owner(_ handler: @escaping OperationTable.Handler) -> Self { .init(principal: .owner, handler: handler) }
    public static func service(_ handler: @escaping OperationTable.Handler) -> Self { .init(principal: .service, handler: handler) }
    public static func any(_ handler: @escaping OperationTable.Handler) -> Self { .init(principal: .any, handler: handler) }
}

extension IncomingRequest {
    /// Refuses a caller the operation does not admit, with the sentence of `requireApp`/`requireOwner`/`requireService`.
    public func require(_ required: RequiredPrincipal) throws(LightboxError) {
        switch required {
        case .any: return
        case .app: _ = try requireApp()
        case .owner: try requireOwner()
        case .service: try requireService()
        }
    }
}
