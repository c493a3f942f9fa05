import Foundation
import LightboxProtocol

/// A pick waiting for the owner, as stored: what any picker needs to list it, browse through its
/// filter and answer it. The app's open request stays in the picker process that holds the app's
/// connection (`holder`); only that process delivers the answer.
struct PickSessionRecord: Sendable {
    var id: String
    var app: String
    var appName: String?
    var configuration: PickerConfiguration
    var createdAt: Date
    /// When the holder times the pick out.
    var expiresAt: Date
    /// The picker process whose app waits for the answer (`PickSessionStore.holder`).
    var holder: String
    /// The holder's X25519 public key (raw): a chosen answer is sealed to it.
    var holderKey: Data
    /// How the pick was answered; nil while it waits.
    var answer: PickAnswer?

    /// The app's name as the owner's sheet shows it.
    var shownName: String { appName ?? app }

    var pending: PendingPick {
        PendingPick(pick: id, app: app, appName: appName, configuration: configuration, createdAt: createdAt)
    }
}

/// How a pick was answered, written by whichever picker answered it and delivered by its holder.
enum PickAnswer: Codable, Sendable {
    /// The owner chose: the results as the app gets them, tokens issued (and stored, hashed)
    /// already, sealed to the holder so that the stored answer holds no readable token.
    case chosen(SealedPickResults)
    /// The owner cancelled, or the app withdrew the pick: no results.
    case cancelled
    /// The owner did not answer in time.
    case timedOut
    /// The holder is shutting down.
    case shuttingDown
}

/// Wake-ups from other pickers sharing the storage (ids only; the rows say the rest).
enum PickSessionChange: Sendable {
    case filed(pick: String)
    case answered(pick: String)
    /// Wake-ups may have been missed (listening again): read the state again.
    case reread
}

/// Where pick sessions live while they wait: `EmbeddedPickSessions` in the picker's memory (SQLite
/// mode: one picker), `PostgresPickSessions` in the shared database, so every picker lists and answers
/// every pick and the holder learns of answers through wake-ups. A pick is answered exactly once:
/// `answer` succeeds for the first caller only, in whatever process.
protocol PickSessionStorage: Sendable {
    /// Stores `session` unless its app already has `limit` picks waiting, at any picker (false then).
    func file(_ session: PickSessionRecord, limit: Int) async throws -> Bool
    /// The picks waiting for the owner, oldest first; answered picks, picks past `expiresAt` and picks
    /// whose holder stopped renewing its lease (it was killed) are left out.
    func waiting(at now: Date) async throws -> [PickSessionRecord]
    /// One waiting pick, as `waiting(at:)` would list it; nil when it is not.
    func waiting(_ id: String, at now: Date) async throws -> PickSessionRecord?
    /// Answers a waiting pick (only one filed by `app`, when given): the record as answered, or nil
    /// when it is not waiting (answered by someone else first, gone, or its holder is gone).
    func answer(_ id: String, with answer: PickAnswer, filedBy app: String?) async throws -> PickSessionRecord?
    /// Those of `ids` that were answered, to deliver.
    func answered(among ids: [String]) async throws -> [PickSessionRecord]
    /// Forgets a pick once its app has the answer.
    func remove(_ id: String) async throws
    /// Keeps `holder`'s picks listed for `lease` more; a holder that stops renewing (killed) leaves
    /// its picks unlisted once the lease ends.
    func renew(holder: String, for lease: Duration) async throws
    /// Calls `changed` for other pickers' files and answers until cancelled (returns at once when
    /// there can be no other picker).
    func follow(_ changed: @escaping @Sendable (PickSessionChange) async -> Void) async
}
