/// One operation on the bus, declared once: its wire name, the caller it admits (the type of the
/// caller its handler receives), its body and reply types, and what it writes to the audit trail.
/// A service's table is built from these values (LightboxTransport's `OperationTable`); PROTOCOL.md,
/// the Python client and the golden fixtures are checked against them (`Operations.all`).
public struct Operation<Caller: OperationCaller, Body: Codable & Sendable, Reply: Codable & Sendable>: Sendable {
    public let name: OperationName
    /// The audit line a call writes, or nil for operations that write none. A family without a
    /// detail (`status`) gets its detail from the handler (`status:readWrite`).
    public let audit: AuditOperation?

    public init(_ name: OperationName, audit: AuditOperation? = nil) {
        self.name = name
        self.audit = audit
    }

    public var declaration: OperationDeclaration {
        OperationDeclaration(name: name, caller: Caller.kind, audit: audit, body: Body.self, reply: Reply.self)
    }
}

/// An operation's declaration without its types, for tables, documentation checks and tests.
public struct OperationDeclaration: Sendable, CustomStringConvertible {
    public let name: OperationName
    public let caller: CallerKind
    public let audit: AuditOperation?
    public let body: any (Codable & Sendable).Type
    public let reply: any (Codable & Sendable).Type

    public var description: String { "\(name) (\(caller))" }
}
