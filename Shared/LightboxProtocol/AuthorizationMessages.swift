import Foundation

/// PHAccessLevel: adding to the library, or reading and writing it.
public enum AccessLevel: String, Codable, Sendable, CaseIterable, CustomStringConvertible {
    case addOnly, readWrite
    public var description: String { rawValue }
}

/// PHAuthorizationStatus. `limited` exists for `readWrite` only.
public enum AuthorizationStatus: String, Codable, Sendable, CaseIterable, CustomStringConvertible {
    case notDetermined, restricted, denied, authorized, limited
    public var description: String { rawValue }
}

/// `auth.status`: an app's status for a level; without a level, the legacy status (limited reads
/// as authorized, as `PHPhotoLibrary.authorizationStatus()` does).
public struct StatusRequest: Codable, Sendable {
    public var level: AccessLevel?
    public init(level: AccessLevel? = nil) { self.level = level }
}

public struct StatusResponse: Codable, Sendable, Hashable {
    public var level: AccessLevel?
    public var status: AuthorizationStatus
    /// With readWrite (and the legacy status): the location the app's library reads deliver.
    public var location: LocationAccess?
    public init(level: AccessLevel?, status: AuthorizationStatus, location: LocationAccess? = nil) {
        self.level = level
        self.status = status
        self.location = location
    }
}

/// `auth.request`: prompts the owner once, only while notDetermined. An `event` `PromptShown`
/// comes first when a prompt is raised; the final `ok` is a `StatusResponse`.
public struct AuthorizationRequest: Codable, Sendable {
    public var level: AccessLevel
    /// With readWrite: the location the app asks to receive with its reads (absent: none). The
    /// owner is asked once per request: with the readWrite prompt, or alone if that was answered.
    public var location: LocationAccess?
    public init(level: AccessLevel, location: LocationAccess? = nil) {
        self.level = level
        self.location = location
    }
}

public struct PromptShown: Codable, Sendable, Hashable {
    public var event: String
    public var prompt: String
    public init(prompt: String) {
        event = "promptShown"
        self.prompt = prompt
    }
}

/// `auth.presentLimitedLibraryPicker`'s final `ok`: the identifiers the owner newly added.
public struct LimitedLibraryPickerResponse: Codable, Sendable, Hashable {
    public var added: [String]
    /// The albums the owner newly let the app follow (absent when none).
    public var addedAlbums: [String]?
    public init(added: [String], addedAlbums: [String]? = nil) {
        self.added = added
        self.addedAlbums = addedAlbums
    }
}

/// One change to an app's access: sent to watchers as an `event`, and kept for `auth.changes`.
public struct AuthorizationChange: Codable, Sendable, Hashable {
    /// Increases with every change; pass the last one seen to `auth.changes` after a reconnect.
    public var token: Int64
    public var app: String
    public var level: AccessLevel
    public var status: AuthorizationStatus
    public var added: [String]
    public var removed: [String]
    public var at: Date
    /// Albums the selection began or stopped following (absent when none): the app sees an album's
    /// assets, those added to it later too, while it follows it.
    public var addedAlbums: [String]?
    public var removedAlbums: [String]?

    public init(token: Int64, app: String, level: AccessLevel, status: AuthorizationStatus, added: [String], removed: [String], at: Date,
                addedAlbums: [String]? = nil, removedAlbums: [String]? = nil) {
        self.token = token
        self.app = app
        self.level = level
        self.status = status
        self.added = added
        self.removed = removed
        self.at = at
        self.addedAlbums = addedAlbums
        self.removedAlbums = removedAlbums
    }
}

/// `auth.watch`: `event` replies carrying `AuthorizationChange`, until the client goes away.
/// `auth.changes`: what changed after `since`, and the newest token.
public struct ChangesRequest: Codable, Sendable {
    public var since: Int64?
    public init(since: Int64? = nil) { self.since = since }
}

public struct ChangesResponse: Codable, Sendable {
    public var changes: [AuthorizationChange]
    public var token: Int64
    public init(changes: [AuthorizationChange], token: Int64) {
        self.changes = changes
        self.token = token
    }
}

// MARK: The owner's side

/// A question waiting for the owner: an authorization prompt, or the limited-library picker.
public struct OwnerPrompt: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable {
        case authorization, limitedLibrary
        /// An app asks to delete the assets in `selection`; the owner answers allow or deny.
        case deleteAssets
        /// An app with library access asks for the location `location` with it; the owner answers
        /// allow with the `location` it gives, or deny.
        case location
    }

    public var prompt: String
    public var kind: Kind
    public var app: String
    public var appName: String
    public var level: AccessLevel?
    /// The manifest's reason for asking, shown with an authorization prompt.
    public var usageDescription: String?
    /// The current limited selection, preselected in the limited-library picker.
    public var selection: [String]
    public var createdAt: Date
    /// A limited-library prompt raised by the app's launch, not asked for by the app: the owner sees
    /// a small alert first (Select More Photos… / Keep Current Selection), as iOS shows on launch.
    public var onLaunch: Bool?
    /// The albums the current limited selection follows, preselected in the limited-library picker.
    public var albums: [String]?

    /// The location the app asks for with this prompt (an authorization or a location prompt).
    public var location: LocationAccess?

    public init(prompt: String, kind: Kind, app: String, appName: String, level: AccessLevel?, usageDescription: String?,
                selection: [String], createdAt: Date, onLaunch: Bool? = nil, albums: [String]? = nil, location: LocationAccess? = nil) {
        self.prompt = prompt
        self.kind = kind
        self.app = app
        self.appName = appName
        self.level = level
        self.usageDescription = usageDescription
        self.selection = selection
        self.createdAt = createdAt
        self.onLaunch = onLaunch
        self.albums = albums
        self.location = location
    }
}

public struct PromptsRequest: Codable, Sendable {
    public var waitMs: Int?
    public init(waitMs: Int? = nil) { self.waitMs = waitMs }
}

public struct PromptsResponse: Codable, Sendable {
    public var prompts: [OwnerPrompt]
    public init(prompts: [OwnerPrompt]) { self.prompts = prompts }
}

/// How the owner answers: readWrite prompts take full / limited / deny; addOnly prompts allow /
/// deny; the limited-library picker takes `done` with the whole new selection.
public enum PromptAnswer: String, Codable, Sendable, CaseIterable {
    case full, limited, deny, allow, done
}

public struct AnswerPromptRequest: Codable, Sendable {
    public var prompt: String
    public var answer: PromptAnswer
    /// With `limited` and `done`: the selection the app may see.
    public var selection: [String]?
    /// With a grant (full, limited, allow): when it ends. Without: until the owner changes it.
    public var term: GrantTerm?
    /// With `limited` and `done`: the albums the selection follows (their assets now and later).
    /// Without: none for `limited`, the current ones for `done`.
    public var albums: [String]?
    /// With a grant, to a prompt that asks for a location: the location the owner gives (never
    /// more than asked; absent: none).
    public var location: LocationAccess?

    public init(prompt: String, answer: PromptAnswer, selection: [String]? = nil, term: GrantTerm? = nil, albums: [String]? = nil, location: LocationAccess? = nil) {
        self.prompt = prompt
        self.answer = answer
        self.selection = selection
        self.term = term
        self.albums = albums
        self.location = location
    }
}

/// What the owner's settings show for one app.
public struct AppAccess: Codable, Sendable, Hashable {
    public var app: String
    public var name: String
    public var readWrite: AuthorizationStatus
    public var addOnly: AuthorizationStatus
    public var selectionCount: Int
    /// True for a desktop app that picks through lightbox-portal (`portal:<app id>`): it has no key
    /// and no library access (both levels `restricted`), only picks and their items.
    public var portal: Bool?
    /// The term of each level's grant, when it has one.
    public var readWriteTerm: GrantTerm?
    public var addOnlyTerm: GrantTerm?
    /// Set when lightbox-auth reset the app's access because it went unused: the last use before
    /// the reset. Cleared by the next grant.
    public var resetAsUnusedSince: Date?
    /// The albums a limited selection follows, beside its `selectionCount` assets (absent when none).
    public var albums: [String]?
    /// The location the owner gave the app with its library access (what its reads deliver while
    /// it has read access), and what it asked for (absent: never asked).
    public var location: LocationAccess?
    public var locationRequested: LocationAccess?

    public init(app: String, name: String, readWrite: AuthorizationStatus, addOnly: AuthorizationStatus, selectionCount: Int,
                portal: Bool? = nil, readWriteTerm: GrantTerm? = nil, addOnlyTerm: GrantTerm? = nil, resetAsUnusedSince: Date? = nil,
                albums: [String]? = nil, location: LocationAccess? = nil, locationRequested: LocationAccess? = nil) {
        self.app = app
        self.name = name
        self.readWrite = readWrite
        self.addOnly = addOnly
        self.selectionCount = selectionCount
        self.portal = portal
        self.readWriteTerm = readWriteTerm
        self.addOnlyTerm = addOnlyTerm
        self.resetAsUnusedSince = resetAsUnusedSince
        self.albums = albums
        self.location = location
        self.locationRequested = locationRequested
    }
}

public struct AppAccessListResponse: Codable, Sendable {
    public var apps: [AppAccess]
    public init(apps: [AppAccess]) { self.apps = apps }
}

/// `owner.access.set`: the owner's settings for one app. Leave a field out to keep it.
public struct SetAccessRequest: Codable, Sendable {
    public enum ReadWrite: String, Codable, Sendable, CaseIterable { case full, limited, none, restricted }
    public enum AddOnly: String, Codable, Sendable, CaseIterable { case allow, none, restricted }

    public var app: String
    public var readWrite: ReadWrite?
    public var addOnly: AddOnly?
    /// With readWrite limited: the whole selection (replaces the current one).
    public var selection: [String]?
    /// Back to notDetermined at both levels, selection cleared.
    public var reset: Bool?
    /// When the grants this request sets end (the levels it names that it grants). Without: until
    /// changed.
    public var term: GrantTerm?
    /// With readWrite limited: every album the selection follows (replaces the current ones); the
    /// app sees their assets, those added later too, and loses those taken out.
    public var albums: [String]?

    /// The location the app's library reads deliver: at most what it asked for (`locationRequested`).
    public var location: LocationAccess?

    public init(app: String, readWrite: ReadWrite? = nil, addOnly: AddOnly? = nil, selection: [String]? = nil, reset: Bool? = nil,
                term: GrantTerm? = nil, albums: [String]? = nil, location: LocationAccess? = nil) {
        self.app = app
        self.readWrite = readWrite
        self.addOnly = addOnly
        self.selection = selection
        self.reset = reset
        self.term = term
        self.albums = albums
        self.location = location
    }
}

/// The final `ok` of `owner.access.set`: the app's access now, and the token of the last change.
public struct SetAccessResponse: Codable, Sendable {
    public var access: AppAccess
    public var token: Int64
    public init(access: AppAccess, token: Int64) {
        self.access = access
        self.token = token
    }
}

/// `owner.audit`: the audit trail, newest first, one page at a time. Every filter is optional.
public struct AuditRequest: Codable, Sendable {
    public var app: String?
    /// An operation name or its prefix before ":" (`load`, `describe`, `pick`, `fetch`, `settings` …).
    public var operation: String?
    /// Entries at or after this time.
    public var since: Date?
    /// Entries before this time.
    public var until: Date?
    /// The `next` cursor of the previous page.
    public var before: Int64?
    public var limit: Int?
    public init(app: String? = nil, operation: String? = nil, since: Date? = nil, until: Date? = nil, before: Int64? = nil,
                limit: Int? = nil) {
        self.app = app
        self.operation = operation
        self.since = since
        self.until = until
        self.before = before
        self.limit = limit
    }
}

/// `owner.access.get` (body: `AccessDetailRequest`): one app's settings and its whole selection.
public struct AccessDetailRequest: Codable, Sendable {
    public var app: String
    public init(app: String) { self.app = app }
}

public struct AccessDetail: Codable, Sendable {
    public var access: AppAccess
    public var usageReadWrite: String?
    public var usageAddOnly: String?
    public var selection: [String]
    public init(access: AppAccess, usageReadWrite: String?, usageAddOnly: String?, selection: [String]) {
        self.access = access
        self.usageReadWrite = usageReadWrite
        self.usageAddOnly = usageAddOnly
        self.selection = selection
    }
}

/// One line of the audit trail: a decision, a settings change, or a read an app made.
public struct AuditEntry: Codable, Sendable, Hashable {
    /// Increases with every entry; the `before` cursor of `owner.audit` pages by it.
    public var id: Int64?
    public var app: String
    /// `read`, `settings`, `request:readWrite`, `pick:opened`, `load`, `fetch` … (see docs/PROTOCOL.md); `AuditOperation` spells them.
    public var operation: String
    public var assetCount: Int
    public var outcome: String
    public var at: Date
    /// Bytes delivered (load, video, image), when the read delivered any.
    public var bytes: Int64?
    /// The asset read, when one was.
    public var asset: String?
    /// How many identical entries this line stands for, the first `at` and the last `lastAt`
    /// (`AuditBatch` collapses repeats); nil for one.
    public var times: Int?
    public var lastAt: Date?
    public init(id: Int64? = nil, app: String, operation: String, assetCount: Int, outcome: String, at: Date, bytes: Int64? = nil,
                asset: String? = nil, times: Int? = nil, lastAt: Date? = nil) {
        self.id = id
        self.app = app
        self.operation = operation
        self.assetCount = assetCount
        self.outcome = outcome
        self.at = at
        self.bytes = bytes
        self.asset = asset
        self.times = times
        self.lastAt = lastAt
    }
}

extension AuditEntry {
    /// An entry from the types; the wire keeps their spelling.
    public init(app: String, operation: AuditOperation, assetCount: Int = 0, outcome: AuditOutcome, at: Date, bytes: Int64? = nil,
                asset: String? = nil) {
        self.init(app: app, operation: operation.rawValue, assetCount: assetCount, outcome: outcome.rawValue, at: at, bytes: bytes,
                  asset: asset)
    }
}

/// `auth.audit.record` (services only, fire-and-forget): reads the picker served, for the owner's
/// audit trail. `app` is the CURVE identity the picker saw, never a field an app sent.
public struct AuditRecordRequest: Codable, Sendable, Hashable {
    public var entries: [AuditEntry]
    public init(entries: [AuditEntry]) { self.entries = entries }
}

public struct AuditResponse: Codable, Sendable {
    /// Newest first.
    public var entries: [AuditEntry]
    /// Pass as `before` for the next (older) page; nil on the last page.
    public var next: Int64?
    public init(entries: [AuditEntry], next: Int64? = nil) {
        self.entries = entries
        self.next = next
    }
}

// MARK: The picker's side

/// What the picker is about to do for an app; the auth service decides.
public enum LibraryAction: String, Codable, Sendable, CaseIterable {
    case read, add, listAlbums, createAlbum
    /// Deleting assets: everything when authorized, the selection when limited.
    case delete
    /// Saving an edited version (or reverting to the original): as deleting.
    case edit
}

/// Which assets an app may see: all of them, its limited selection, or none.
public enum LibraryScope: String, Codable, Sendable {
    case all, selection, none
}

/// What lightbox-auth decided about one library action for one app. A `selection` scope means the
/// app's limited selection, which travels separately (`AppDecisions.selection` and `albums`), never
/// per call.
public struct LibraryDecision: Codable, Sendable, Hashable {
    public var allowed: Bool
    public var scope: LibraryScope
    public var status: AuthorizationStatus
    /// Why not, for the app, when `allowed` is false.
    public var reason: String?
    /// For `read`: the location the owner gave the app with its library access (absent: none).
    public var location: LocationAccess?
    public init(allowed: Bool, scope: LibraryScope, status: AuthorizationStatus, reason: String? = nil, location: LocationAccess? = nil) {
        self.allowed = allowed
        self.scope = scope
        self.status = status
        self.reason = reason
        self.location = location
    }
}

/// `auth.decisions.get` (services only).
public struct AppDecisionsRequest: Codable, Sendable {
    public var app: String
    public init(app: String) {
        self.app = app
    }
}

/// Everything the picker needs to apply an app's permissions without asking again: the decision
/// for every library action, and the limited selection (empty unless limited). `version` orders
/// answers and changes: a cache keeps an answer only if no newer change has been announced.
public struct AppDecisions: Codable, Sendable, Hashable {
    public var app: String
    public var version: Int64
    /// By `LibraryAction` raw value.
    public var decisions: [String: LibraryDecision]
    public var selection: [String]
    /// The albums the limited selection follows (absent when none): the picker joins their members
    /// in its own catalog, so an album's assets never travel here.
    public var albums: [String]?
    public init(app: String, version: Int64, decisions: [String: LibraryDecision], selection: [String], albums: [String]? = nil) {
        self.app = app
        self.version = version
        self.decisions = decisions
        self.selection = selection
        self.albums = albums
    }

    public func decision(_ action: LibraryAction) -> LibraryDecision? { decisions[action.rawValue] }
}

/// An event on `auth.decisions.follow`: the first names the follower and carries no apps; each
/// later one names the apps whose decisions changed at `version`.
public struct DecisionsChanged: Codable, Sendable, Hashable {
    public var follower: String
    public var version: Int64
    public var apps: [String]
    public init(follower: String, version: Int64, apps: [String]) {
        self.follower = follower
        self.version = version
        self.apps = apps
    }
}

/// `auth.decisions.applied` (services only): the follower has dropped everything up to `version`.
public struct DecisionsApplied: Codable, Sendable, Hashable {
    public var follower: String
    public var version: Int64
    public init(follower: String, version: Int64) {
        self.follower = follower
        self.version = version
    }
}

/// `auth.launch` (services only): an app's launch touched the library for the first time.
public struct AppLaunch: Codable, Sendable, Hashable {
    public var app: String
    /// The app's connection the access came on.
    public var connection: String
    /// The launch (process) that connection said it belongs to (`service.hello`); without it the
    /// connection is a launch of its own.
    public var launch: String?
    public init(app: String, connection: String, launch: String? = nil) {
        self.app = app
        self.connection = connection
        self.launch = launch
    }
}

/// `auth.assetCreated` (services only): an app added this asset; a limited app's selection gains it.
public struct AssetCreatedRequest: Codable, Sendable {
    public var app: String
    public var asset: String
    public init(app: String, asset: String) {
        self.app = app
        self.asset = asset
    }
}
