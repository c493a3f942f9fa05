import Foundation
import LightboxProtocol

/// What one app may see of the library, as lightbox-auth decided it for one action: everything when
/// authorized, its selection when limited, nothing otherwise. The one answer to "which of these
/// assets may this app see", used by fetch, query, image, video, properties, delete and change
/// events alike. A limited app's selection is a table (`SelectionTable`) joined or looked up, never
/// a list carried per call.
struct LibraryView: Sendable {
    let app: String
    let decision: LibraryDecision
    let selections: SelectionTable

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
        guard decision.scope != .none else { return [] }
        let selected = decision.scope == .selection ? try await selections.members(of: app, among: entries.compactMap(\.asset)) : []
        return entries.compactMap { entry in
            if decision.scope == .selection {
                guard entry.kind != LibraryChangeLog.Kind.album.rawValue, let asset = entry.asset, selected.contains(asset) else { return nil }
            }
            return LibraryChangeLog.change(entry)
        }
    }
}
