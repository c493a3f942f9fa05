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
            let membership = try await selections.membership(of: app, among: Array(Set(entries.compactMap(\.asset))))
            return Self.changes(in: entries, as: membership)
        }
    }

    /// The changes a limited app sees, given how each asset is in its selection now. An asset that
    /// joins an album the selection follows is inserted for the app unless something else shows it
    /// already, and one that leaves it is removed unless something else still shows it (the same
    /// report twice in a row for one asset is said once); other assets' changes only when it sees them.
    static func changes(in entries: [LibraryChangeLog.Entry], as membership: SelectionMembership) -> [LibraryChange] {
        var lastSaid: [String: LibraryChangeLog.Kind] = [:]
        return entries.compactMap { entry -> LibraryChange? in
            guard let asset = entry.asset, let kind = LibraryChangeLog.Kind(rawValue: entry.kind) else { return nil }
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
            case .album:
                return nil
            }
        }
    }
}
