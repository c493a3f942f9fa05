import Foundation
import LightboxTransport

/// The owner's browser sessions: a session starts from a one-time login secret and carries its
/// own CSRF token. Kept in memory: restarting the surface logs the browser out.
actor SessionStore {
    struct Session: Sendable {
        var id: String
        var csrf: String
        var created: Date
    }

    static let lifetime: TimeInterval = 12 * 3600
    /// The oldest session ends when more are opened (each login makes one).
    static let maximumSessions = 16
    private var sessions: [String: Session] = [:]

    func create() -> Session {
        let session = Session(id: SecureRandom.token(bytes: 32), csrf: SecureRandom.token(bytes: 32), created: Date())
        if sessions.count >= Self.maximumSessions, let oldest = sessions.values.min(by: { $0.created < $1.created }) {
            sessions[oldest.id] = nil
        }
        sessions[session.id] = session
        return session
    }

    func session(_ id: String?) -> Session? {
        guard let id, let session = sessions[id] else { return nil }
        guard Date().timeIntervalSince(session.created) < Self.lifetime else {
            sessions[id] = nil
            return nil
        }
        return session
    }
}

/// Compares secrets in time that does not depend on where they differ.
func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8), y = Array(b.utf8)
    guard x.count == y.count else { return false }
    var difference: UInt8 = 0
    for index in x.indices { difference |= x[index] ^ y[index] }
    return difference == 0
}
