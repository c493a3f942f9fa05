import Foundation
import LightboxProtocol

/// Where lightbox-auth keeps its state: the registered apps and the desktop apps the portal named,
/// each app's statuses, limited selection (and followed albums), grant terms and location, the
/// change log and the audit trail. Two implementations: SQLite in the data folder (the default,
/// `SQLiteAuthStorage`) and a PostgreSQL database (`PostgresAuthStorage`, `--database`). The
/// service uses nothing else; no SQL lives outside the implementations.
///
/// Both keep the same promises: an update is committed with its change rows and its audit line in
/// one transaction before it returns (an acknowledged grant survives a crash), change tokens grow
/// per app in the order readers see them, and audit pages are keyset pages by id, newest first.
protocol AuthStorage: Sendable {
    /// Opens what needs opening (a connection pool, the schema brought up to date) and keeps it
    /// open while `body` runs. A database that cannot be reached throws a sentence saying so.
    func whileOpen(_ body: () async throws -> Void) async throws

    // MARK: Apps

    /// Stores `manifest` (new, or replacing that app's), unless its key belongs to another app:
    /// then nothing is stored and that app's id is returned.
    func saveApp(_ manifest: AppManifest, registeredAt: Date) async throws -> String?
    /// Every registered app, by id.
    func apps() async throws -> [AppManifest]
    func app(withPublicKey key: String) async throws -> AppManifest?
    func app(withID id: String) async throws -> AppManifest?
    /// Records (or renames) a desktop app the portal named.
    func saveDesktopApp(_ record: DesktopAppRecord) async throws
    /// Every desktop app the portal named, by the name it files them under.
    func desktopApps() async throws -> [DesktopAppRecord]

    // MARK: Access

    /// The app's statuses, and its selection and albums unless `includingSelection` is false (a
    /// status check need not read 100,000 identifiers).
    func access(of app: String, includingSelection: Bool) async throws -> AuthorizationStore.Access
    func selectionCount(of app: String) async throws -> Int
    func followedAlbums(of app: String) async throws -> [String]
    /// Applies each update (`AuthorizationStore.plan`) with its audit line, all in one
    /// transaction, and returns every change made (none when nothing differs).
    func apply(_ applications: [AuthorizationStore.Application], now: Date) async throws -> [AuthorizationChange]
    /// The app's changes after `token`, oldest first.
    func changes(of app: String, since token: Int64) async throws -> [AuthorizationChange]
    /// The app's newest change token (0 before its first change).
    func latestToken(of app: String) async throws -> Int64
    func location(of app: String) async throws -> AuthorizationStore.LocationSetting
    /// Stores the owner's answer (`granted`) and, when a prompt asked, what it asked (`requested`;
    /// nil keeps the one stored), with `auditLine` in the same transaction.
    func setLocation(of app: String, granted: LocationAccess, requested: LocationAccess?, now: Date, auditLine: AuditEntry) async throws

    // MARK: Grants that end, access reset when unused

    /// When the next term ends, if any grant has one.
    func nextTermEnd() async throws -> Date?
    /// Ends every grant whose term is over at `now` (`AuthorizationStore.termEnd`), each with its
    /// audit line, in one transaction.
    func endTerms(at now: Date) async throws -> [AuthorizationChange]
    /// Resets the access of every app holding a grant it neither was given nor used since `cutoff`
    /// (use: any line of the audit trail its own requests wrote; `AuthorizationStore.unusedReset`),
    /// noting when it was last used, in one transaction.
    func resetUnused(since cutoff: Date, now: Date) async throws -> [AuthorizationChange]
    /// The last use before the app's access was reset as unused, until its next grant.
    func unusedResetSince(of app: String) async throws -> Date?

    // MARK: Audit trail

    /// Appends gathered lines in one transaction that need not wait for the disk: the next durable
    /// commit puts them there (the owner's own changes are written with the change instead).
    func appendAudit(_ entries: [AuditEntry]) async throws
    /// Up to `limit` lines matching `request` (its limit aside), newest first, before
    /// `request.before` when given.
    func auditEntries(_ request: AuditRequest, limit: Int) async throws -> [AuditEntry]
    /// The privacy report's numbers for one app since a time, counted by the database.
    func auditSummary(app: String, since: Date, recentLimit: Int) async throws -> AuditSummary
}

extension AuthStorage {
    func access(of app: String) async throws -> AuthorizationStore.Access {
        try await access(of: app, includingSelection: true)
    }

    /// Applies one update; `auditLine` is written in the same transaction.
    func apply(_ update: AuthorizationStore.Update, to app: String, now: Date = Date(),
               auditLine: AuthorizationStore.AuditLine? = nil) async throws -> [AuthorizationChange] {
        try await apply([AuthorizationStore.Application(app: app, update: update, auditLine: auditLine)], now: now)
    }

    /// Back to notDetermined at both levels, selection cleared.
    func reset(_ app: String, now: Date = Date(), auditLine: AuthorizationStore.AuditLine? = nil) async throws -> [AuthorizationChange] {
        try await apply(AuthorizationStore.Update(readWrite: .notDetermined, addOnly: .notDetermined, selection: []), to: app, now: now,
                        auditLine: auditLine)
    }

    func setLocation(of app: String, granted: LocationAccess, requested: LocationAccess? = nil, auditLine: AuditEntry) async throws {
        try await setLocation(of: app, granted: granted, requested: requested, now: Date(), auditLine: auditLine)
    }

    func endTerms() async throws -> [AuthorizationChange] {
        try await endTerms(at: Date())
    }

    func resetUnused(since cutoff: Date) async throws -> [AuthorizationChange] {
        try await resetUnused(since: cutoff, now: Date())
    }
}
