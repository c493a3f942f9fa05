import Foundation
import LightboxProtocol

/// What one app may see of the library, as lightbox-auth decided it for one action: everything when
/// authorized, its selection when limited, nothing otherwise. The one answer to "which of these
/// assets may this app see", used by fetch, query, image, video, properties, delete and change
/// events alike. A limited app's selection is a table (`SelectionTable`) joined or looked up, never
/// a list carried per call; the albums it follows are joined to their members the same way.
struct LibraryView: Sendable {
    let app: String
    let decision: LibraryDecision
    let selections: any SelectionStorage

    /// Whether auth allowed the action. A read is allowed even when the app sees nothing (it gets
    /// empty answers, never an error): `seesNothing` says that.
    var isAllowed: Bool { decision.allowed }

    var seesNothing: Bool { decision.scope == .none }

    /// For queries run in SQL: the app whose selection the query joins, or nil when it sees the
    /// whole library. Only meaningful when not `seesNothing`.
    var selectionToJoin: String? { decision.scope == .selection ? app : nil }

    /// The identifiers the app may see, in the order asked.
    func visible(_ identifiers: [String]) async throws -> [String] {
        switch decision.scope {
        case .all: return identifiers
        case .none: return []
        case .selection:
            let members = try await selections.members(of: app, among: identifiers)
            return identifiers.filter(members.contains)
        }
    }

    func canSee(_ identifier: String) async throws -> Bool {
        try await !visible([identifier]).isEmpty
    }

    /// The changes among `entries` the app may see, oldest first: assets only when it sees them,
    /// albums only with full access (limited apps do not see albums). One selection lookup for all.
    func changes(in entries: [LibraryChangeLog.Entry]) async throws -> [LibraryChange] {
        switch decision.scope {
        case .none: return []
        case .all: return entries.compactMap(LibraryChangeLog.change)
        case .selection:
            // The members of the albums it began or stopped following: looked up now, like the rest.
            var albumMembers: [String: [String]] = [:]
            for entry in entries where entry.app == app && Self.followKinds.contains(entry.kind) {
                guard let album = entry.album, albumMembers[album] == nil else { continue }
                albumMembers[album] = try await selections.assets(inAlbum: album)
            }
            let assets = Set(entries.compactMap { $0.app == nil ? $0.asset : nil }).union(albumMembers.values.joined())
            let membership = try await selections.membership(of: app, among: Array(assets))
            return Self.changes(in: entries, as: membership, for: app, albumMembers: albumMembers)
        }
    }

    private static let followKinds: Set<String> = [LibraryChangeLog.Kind.followed.rawValue, LibraryChangeLog.Kind.unfollowed.rawValue]
    /// Most assets one follow change reports in one event; more come as further events with its token.
    static let assetsPerFollowEvent = 1000

    /// The changes a limited app sees, given how each asset is in its selection now. An asset that
    /// joins an album the selection follows is inserted for the app unless something else shows it
    /// already, and one that leaves it is removed unless something else still shows it (the same
    /// report twice in a row for one asset is said once); other assets' changes only when it sees them.
    /// An album `app`'s selection began following inserts its members (`albumMembers`) that nothing
    /// else showed, if it still follows it; one it stopped following removes those it no longer
    /// sees; other apps' follows are none of its business.
    static func changes(in entries: [LibraryChangeLog.Entry], as membership: SelectionMembership, for app: String = "",
                        albumMembers: [String: [String]] = [:]) -> [LibraryChange] {
        var lastSaid: [String: LibraryChangeLog.Kind] = [:]
        return entries.flatMap { entry -> [LibraryChange] in
            guard entry.app == nil || entry.app == app, let kind = LibraryChangeLog.Kind(rawValue: entry.kind) else { return [] }
            if kind == .followed || kind == .unfollowed {
                guard let album = entry.album, membership.followed.contains(album) == (kind == .followed) else { return [] }
                let members = (albumMembers[album] ?? []).filter { asset in
                    kind == .followed ? !membership.sees(asset, otherThan: album) : !membership.sees(asset)
                }
                for asset in members { lastSaid[asset] = kind == .followed ? .inserted : .removed }
                return stride(from: 0, to: members.count, by: assetsPerFollowEvent).map { start in
                    let part = Array(members[start..<min(start + assetsPerFollowEvent, members.count)])
                    return kind == .followed ? LibraryChange(token: entry.token, inserted: part, at: entry.at)
                        : LibraryChange(token: entry.token, removed: part, at: entry.at)
                }
            }
            return change(entry, kind, as: membership, lastSaid: &lastSaid).map { [$0] } ?? []
        }
    }

    /// One library row's change for a limited app (`changes(in:as:for:albumMembers:)`).
    private static func change(_ entry: LibraryChangeLog.Entry, _ kind: LibraryChangeLog.Kind, as membership: SelectionMembership,
                               lastSaid: inout [String: LibraryChangeLog.Kind]) -> LibraryChange? {
        guard let asset = entry.asset else { return nil }
        var change = LibraryChange(token: entry.token, at: entry.at)
        switch kind {
        case .addedToAlbum, .removedFromAlbum:
            guard let album = entry.album, membership.followed.contains(album), !membership.sees(asset, otherThan: album) else { return nil }
            let said: LibraryChangeLog.Kind = kind == .addedToAlbum ? .inserted : .removed
            guard lastSaid.updateValue(said, forKey: asset) != said else { return nil }
            if said == .inserted { change.inserted = [asset] } else { change.removed = [asset] }
            return change
        case .inserted, .removed, .changed:
            guard membership.sees(asset) else { return nil }
            lastSaid[asset] = kind
            return LibraryChangeLog.change(entry)
        case .album, .followed, .unfollowed:
            return nil
        }
    }
}
