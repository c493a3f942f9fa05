/// How an audited operation ended, spelled as the trail spells it (`ok`, `waiting`,
/// `refused:tokenExpired`, `delivered to pid 4242 uid 1000`). A refusal names its reason after a
/// colon, as operations name their detail.
public struct AuditOutcome: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
}

// Plain outcomes.
extension AuditOutcome {
    public static let ok = AuditOutcome(rawValue: "ok")
    public static let delivered = AuditOutcome(rawValue: "delivered")
    /// A pick waiting for the owner.
    public static let waiting = AuditOutcome(rawValue: "waiting")
    public static let timeout = AuditOutcome(rawValue: "timeout")
    public static let cancelled = AuditOutcome(rawValue: "cancelled")
    /// A stream that ran to its end, or stopped because the app went away or it failed.
    public static let completed = AuditOutcome(rawValue: "completed")
    public static let abandoned = AuditOutcome(rawValue: "abandoned")
    public static let failed = AuditOutcome(rawValue: "failed")
    /// A delivery ticket nobody presented in time.
    public static let expired = AuditOutcome(rawValue: "expired")
    public static let requested = AuditOutcome(rawValue: "requested")
    public static let inCloud = AuditOutcome(rawValue: "inCloud")
    public static let created = AuditOutcome(rawValue: "created")
    public static let changed = AuditOutcome(rawValue: "changed")
    public static let deleted = AuditOutcome(rawValue: "deleted")
    /// An edited version saved; an asset returned to its original.
    public static let edited = AuditOutcome(rawValue: "edited")
    public static let reverted = AuditOutcome(rawValue: "reverted")
    public static let allowed = AuditOutcome(rawValue: "allowed")
    public static let declined = AuditOutcome(rawValue: "declined")
    /// A refusal without a stated reason.
    public static let refused = AuditOutcome(rawValue: "refused")
    public static let notLimited = AuditOutcome(rawValue: "notLimited")
    public static let missingUsageDescription = AuditOutcome(rawValue: "missingUsageDescription")
}

// Outcomes that carry what was decided.
extension AuditOutcome {
    /// Whether this is a refusal (`refused`, or `refused:` and its reason).
    public var isRefusal: Bool { rawValue == Self.refused.rawValue || rawValue.hasPrefix(Self.refusalPrefix) }
    /// What every refusal with a reason begins with.
    public static let refusalPrefix = "refused:"
    /// Refused, and why: an error code, a status, `wrongApp`, with whatever follows it.
    public static func refused(_ reason: String) -> AuditOutcome { AuditOutcome(rawValue: refusalPrefix + reason) }
    public static func refused(_ code: ErrorCode) -> AuditOutcome { refused(code.rawValue) }
    /// A library decision that allowed the action, over this scope.
    public static func allowed(_ scope: LibraryScope) -> AuditOutcome { AuditOutcome(rawValue: "allowed:" + scope.rawValue) }
    /// A status as it stands (a status check, a prompt's answer).
    public static func status(_ status: AuthorizationStatus) -> AuditOutcome { AuditOutcome(rawValue: status.rawValue) }
    /// A request answered from the stored status, without a prompt.
    public static func stored(_ status: AuthorizationStatus) -> AuditOutcome { AuditOutcome(rawValue: "stored:\(status)") }
    /// The limited-library picker answered with a selection this long.
    public static func selection(count: Int) -> AuditOutcome { AuditOutcome(rawValue: "selection:\(count)") }
    /// The owner's settings as they stand after a change.
    public static func settings(readWrite: AuthorizationStatus, addOnly: AuthorizationStatus) -> AuditOutcome {
        AuditOutcome(rawValue: "readWrite:\(readWrite) addOnly:\(addOnly)")
    }
    /// A descriptor handed to this process on the delivery socket.
    public static func delivered(toProcess processID: Int32, user userID: UInt32) -> AuditOutcome {
        AuditOutcome(rawValue: "delivered to pid \(processID) uid \(userID)")
    }
}
