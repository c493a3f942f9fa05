import Foundation
import Synchronization

/// Pick sessions in the picker's memory: the storage beside SQLite, where one picker serves the
/// library. Nothing is lost by keeping them there: a pick cannot outlive the process holding the
/// app's open request, so a restarted picker has no pick to remember.
final class EmbeddedPickSessions: PickSessionStorage {
    private let sessions = Mutex<[String: PickSessionRecord]>([:])

    func file(_ session: PickSessionRecord, limit: Int) async throws -> Bool {
        sessions.withLock { sessions in
            let now = Date()
            guard sessions.values.lazy.filter({ $0.app == session.app && Self.isWaiting($0, at: now) }).count < limit else { return false }
            sessions[session.id] = session
            return true
        }
    }

    func waiting(at now: Date) async throws -> [PickSessionRecord] {
        sessions.withLock { $0.values.filter { Self.isWaiting($0, at: now) }.sorted { $0.createdAt < $1.createdAt } }
    }

    func waiting(_ id: String, at now: Date) async throws -> PickSessionRecord? {
        sessions.withLock { $0[id].flatMap { Self.isWaiting($0, at: now) ? $0 : nil } }
    }

    func answer(_ id: String, with answer: PickAnswer, filedBy app: String?) async throws -> PickSessionRecord? {
        sessions.withLock { sessions in
            guard var session = sessions[id], session.answer == nil, app == nil || session.app == app else { return nil }
            session.answer = answer
            sessions[id] = session
            return session
        }
    }

    func answered(among ids: [String]) async throws -> [PickSessionRecord] {
        sessions.withLock { sessions in ids.compactMap { sessions[$0] }.filter { $0.answer != nil } }
    }

    func remove(_ id: String) async throws {
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }

    /// The one picker is its picks' only holder: nothing to renew.
    func renew(holder: String, for lease: Duration) async throws {}

    /// No other picker files or answers these picks.
    func follow(_ changed: @escaping @Sendable (PickSessionChange) async -> Void) async {}

    private static func isWaiting(_ session: PickSessionRecord, at now: Date) -> Bool {
        session.answer == nil && session.expiresAt > now
    }
}
