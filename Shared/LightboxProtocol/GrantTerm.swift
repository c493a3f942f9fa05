import Foundation

/// How long an owner's grant lasts: until `until`, then the level returns to what `then` says
/// (`askAgain`: notDetermined, so the app may ask again; `deny`: denied). Without `then`, to what
/// the owner had chosen before the grant: denied stays denied, anything else asks again. A grant
/// without a term lasts until the owner changes it.
public struct GrantTerm: Codable, Sendable, Hashable {
    public enum Afterwards: String, Codable, Sendable, CaseIterable {
        case askAgain, deny

        /// The status the level returns to.
        public var status: AuthorizationStatus { self == .deny ? .denied : .notDetermined }
    }

    public var until: Date
    public var then: Afterwards?

    public init(until: Date, then: Afterwards? = nil) {
        self.until = until
        self.then = then
    }

    /// What the level becomes when the term ends, once lightbox-auth has settled it (`then` is
    /// always set in the terms it reports).
    public var afterwards: Afterwards { then ?? .askAgain }
}

extension AuthorizationStatus {
    /// Whether the status gives the app something (full or limited access, or add-only allowed):
    /// only grants can have a term, and only grants are reset when unused.
    public var isGrant: Bool { self == .authorized || self == .limited }
}
