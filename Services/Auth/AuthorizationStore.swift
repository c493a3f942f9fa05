import Foundation
import LightboxProtocol

/// Statuses, limited selections and the change log: what an app's access is, what a change of it
/// asks for, and how a change is worked out from the access before it (`plan`). Kept by an
/// `AuthStorage`, which commits each change in one transaction with its change record and audit
/// line: when a caller is answered, it is on disk.
enum AuthorizationStore {
    struct Access: Sendable, Hashable {
        var readWrite: AuthorizationStatus
        var addOnly: AuthorizationStatus
        var selection: [String]
        /// When each level's grant ends, if it does.
        var readWriteTerm: GrantTerm?
        var addOnlyTerm: GrantTerm?
        /// The albums a limited selection follows (read with the selection).
        var albums: [String] = []

        func status(_ level: AccessLevel) -> AuthorizationStatus {
            level == .readWrite ? readWrite : addOnly
        }

        /// The access a storage's rows give: a status row per level decided (a level without one
        /// is notDetermined), with its term.
        init(rows: [StoredStatus], selection: [String], albums: [String]) {
            let readWrite = rows.first { $0.level == AccessLevel.readWrite.rawValue }, addOnly = rows.first { $0.level == AccessLevel.addOnly.rawValue }
            self.init(readWrite: readWrite.flatMap { AuthorizationStatus(rawValue: $0.status) } ?? .notDetermined,
                      addOnly: addOnly.flatMap { AuthorizationStatus(rawValue: $0.status) } ?? .notDetermined, selection: selection,
                      readWriteTerm: readWrite?.term, addOnlyTerm: addOnly?.term, albums: albums)
        }

        init(readWrite: AuthorizationStatus, addOnly: AuthorizationStatus, selection: [String], readWriteTerm: GrantTerm? = nil,
             addOnlyTerm: GrantTerm? = nil, albums: [String] = []) {
            (self.readWrite, self.addOnly, self.selection) = (readWrite, addOnly, selection)
            (self.readWriteTerm, self.addOnlyTerm, self.albums) = (readWriteTerm, addOnlyTerm, albums)
        }
    }

    /// One of an app's statuses as a storage keeps it: a level, its status, and the term of a
    /// grant that ends (its end, and what follows as text).
    struct StoredStatus: Sendable {
        var level: String
        var status: String
        var expiresAt: Date?
        var afterExpiry: String?

        /// The grant's term, when it has one.
        var term: GrantTerm? {
            expiresAt.map { GrantTerm(until: $0, then: afterExpiry.flatMap(GrantTerm.Afterwards.init(rawValue:))) }
        }
    }

    /// What a change asks for; nil fields stay as they are.
    struct Update: Sendable {
        var readWrite: AuthorizationStatus?
        var addOnly: AuthorizationStatus?
        /// The whole new selection.
        var selection: [String]?
        /// Assets to add to the selection.
        var addedAssets: [String] = []
        /// Every album the selection follows (replaces the current ones).
        var albums: [String]?
        /// Change nothing unless this level is still notDetermined (a prompt's answer: the owner's
        /// settings may have answered it meanwhile).
        var onlyWhileNotDetermined: AccessLevel?
        /// The term of the grants this update sets. Each level the update names gets it if its new
        /// status is a grant, and loses any term otherwise; a level it does not name keeps its own.
        var term: GrantTerm?
    }

    /// The app's state after an update, and the changes it made: what the update's audit line says.
    struct Applied: Sendable {
        /// Statuses only; the selection is `selectionCount` long.
        var access: Access
        var selectionCount: Int
        var changes: [AuthorizationChange]
    }

    /// The audit line of an owner's change, made from its result inside the change's transaction.
    typealias AuditLine = @Sendable (Applied) -> AuditEntry

    /// One app's update with the audit line it writes (none for an app's own additions).
    struct Application: Sendable {
        var app: String
        var update: Update
        var auditLine: AuditLine?
    }

    /// The albums one update began and stopped following.
    struct AlbumChanges: Sendable, Hashable {
        var added: [String] = []
        var removed: [String] = []
    }

    /// One row of the change log an update adds (its level's status is set with it).
    struct PlannedChange: Sendable {
        var level: AccessLevel
        var status: AuthorizationStatus
        var added: [String]
        var removed: [String]
        var albums = AlbumChanges()

        /// The change as the log and the wire carry it, once its row has its token. Album lists are
        /// nil when empty, as the wire leaves them out.
        func change(token: Int64, app: String, at now: Date) -> AuthorizationChange {
            AuthorizationChange(token: token, app: app, level: level, status: status, added: added, removed: removed, at: now,
                                addedAlbums: albums.added.isEmpty ? nil : albums.added,
                                removedAlbums: albums.removed.isEmpty ? nil : albums.removed)
        }
    }

    /// What a storage writes for one update, worked out from the app's access before it, so that
    /// both storages apply the same rules.
    struct Plan: Sendable {
        /// The whole selection to store, in the owner's order, when it changed.
        var selection: [String]?
        /// The albums the selection follows, in the owner's order, when they changed.
        var albums: [String]?
        /// In order: each sets its level's status and adds a row to the change log.
        var changes: [PlannedChange] = []
        /// The terms to store for the levels the update named (nil: no term).
        var terms: [(level: AccessLevel, term: GrantTerm?)] = []
        /// A grant was given: the note that the app's access was reset as unused goes.
        var forgetsUnusedReset = false
    }

    /// The plan of `update` over `before` (the app's access with its selection), or nil when the
    /// update waits for a level that is no longer notDetermined.
    static func plan(_ update: Update, before: Access) -> Plan? {
        if let level = update.onlyWhileNotDetermined, before.status(level) != .notDetermined { return nil }
        var plan = Plan()
        let newReadWrite = update.readWrite ?? before.readWrite
        var selection = update.selection.map(Self.unique) ?? before.selection
        // Sets, not list scans: a selection may hold 100,000 assets.
        var members = Set(selection)
        for asset in update.addedAssets where members.insert(asset).inserted { selection.append(asset) }
        // A selection means something only while limited: leaving limited empties it, so a
        // watcher is told those assets are gone and a later limited grant starts afresh.
        if newReadWrite != .limited {
            selection = []
            members = []
        }
        let previous = Set(before.selection)
        let added = selection.filter { !previous.contains($0) }
        let removed = before.selection.filter { !members.contains($0) }
        if !added.isEmpty || !removed.isEmpty { plan.selection = selection }
        // Albums likewise: followed only while limited.
        let albums = newReadWrite == .limited ? update.albums.map(Self.unique) ?? before.albums : []
        let albumSet = Set(albums), albumsBefore = Set(before.albums)
        let albumChanges = AlbumChanges(added: albums.filter { !albumsBefore.contains($0) }, removed: before.albums.filter { !albumSet.contains($0) })
        if albumChanges != AlbumChanges() || before.albums != albums { plan.albums = albums }
        let newAddOnly = update.addOnly ?? before.addOnly
        if newReadWrite != before.readWrite || !added.isEmpty || !removed.isEmpty || !albumChanges.added.isEmpty || !albumChanges.removed.isEmpty {
            plan.changes.append(PlannedChange(level: .readWrite, status: newReadWrite, added: added, removed: removed, albums: albumChanges))
        }
        if newAddOnly != before.addOnly {
            plan.changes.append(PlannedChange(level: .addOnly, status: newAddOnly, added: [], removed: []))
        }
        if update.readWrite != nil {
            plan.terms.append((.readWrite, newReadWrite.isGrant ? update.term?.settled(after: before.readWrite) : nil))
        }
        if update.addOnly != nil {
            plan.terms.append((.addOnly, newAddOnly.isGrant ? update.term?.settled(after: before.addOnly) : nil))
        }
        plan.forgetsUnusedReset = (update.readWrite != nil && newReadWrite.isGrant) || (update.addOnly != nil && newAddOnly.isGrant)
        return plan
    }

    /// The update that ends a grant whose term is over (`afterExpiry` as stored; a level this
    /// version does not know ends nothing), with its audit line.
    static func termEnd(app: String, level: AccessLevel, afterExpiry: String?, now: Date) -> Application {
        let status = (afterExpiry.flatMap(GrantTerm.Afterwards.init(rawValue:)) ?? .askAgain).status
        var update = Update()
        if level == .readWrite { update.readWrite = status } else { update.addOnly = status }
        return Application(app: app, update: update, auditLine: { applied in
            AuditEntry(app: app, operation: .grantEnded(level), assetCount: 0, outcome: .status(applied.access.status(level)), at: now)
        })
    }

    /// The update that resets an unused app's grants (`before`: its statuses) to notDetermined,
    /// with its audit line.
    static func unusedReset(app: String, before: Access, now: Date) -> Application {
        var update = Update()
        if before.readWrite.isGrant { update.readWrite = .notDetermined }
        if before.addOnly.isGrant { update.addOnly = .notDetermined }
        return Application(app: app, update: update, auditLine: { applied in
            AuditEntry(app: app, operation: .resetUnused, assetCount: 0,
                       outcome: .settings(readWrite: applied.access.readWrite, addOnly: applied.access.addOnly), at: now)
        })
    }

    /// How many albums one selection may follow.
    static let maximumAlbums = 1_000

    /// The albums an owner's request names, checked: at most `maximumAlbums`, each a plain
    /// identifier. nil stays nil (the request keeps the current albums).
    static func validatedAlbums(_ albums: [String]?) throws -> [String]? {
        guard let albums else { return nil }
        guard albums.count <= maximumAlbums else {
            throw LightboxError(.badRequest, "A limited selection may follow at most \(maximumAlbums) albums; this one names \(albums.count).")
        }
        if let bad = albums.first(where: { $0.isEmpty || $0.utf8.count > 200 || $0.contains(where: \.isNewline) }) {
            throw LightboxError(.badRequest, "albums holds \"\(bad.prefix(40))\", which is no album identifier; use those owner.outline lists.")
        }
        return albums
    }

    static func unique(_ assets: [String]) -> [String] {
        var seen = Set<String>()
        return assets.filter { seen.insert($0).inserted }
    }

    /// What an app may receive of where its photos were taken, kept beside its statuses: what it
    /// asked for (when it was last prompted) and what the owner gave. Whether it applies is
    /// `AccessPolicy.location`'s question; the storage only keeps it.
    struct LocationSetting: Sendable, Hashable {
        /// What the app asked for when the owner was last asked; nil when it never asked.
        var requested: LocationAccess?
        var granted: LocationAccess
    }
}

extension GrantTerm {
    /// The term with what follows it decided: as asked, or else back to what the owner had chosen
    /// before the grant (denied stays denied; anything else asks again).
    func settled(after previous: AuthorizationStatus) -> GrantTerm {
        GrantTerm(until: until, then: then ?? (previous == .denied ? .deny : .askAgain))
    }
}
