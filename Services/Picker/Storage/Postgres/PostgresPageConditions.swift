import Foundation
import LightboxProtocol
import PostgresNIO

/// The conditions of the owner's and apps' pages in PostgreSQL, each value bound into the page's
/// statement: a pick's filter, the owner's search, an album, a limited app's selection.
extension PostgresStatement {
    /// `filter` as a condition on `asset` (`PickerFilter.matches`'s rule, as SQLite's `sqlCondition`).
    mutating func condition(_ filter: PickerFilter) -> String {
        switch filter {
        case .images: return "mediaType = \(bind(MediaType.image.rawValue))"
        case .videos: return "mediaType = \(bind(MediaType.video.rawValue))"
        case .livePhotos: return PickerFilter.subtypeCondition(.livePhoto)
        case .screenshots: return PickerFilter.subtypeCondition(.screenshot)
        case .panoramas: return PickerFilter.subtypeCondition(.panorama)
        case .bursts: return PickerFilter.subtypeCondition(.burst)
        case .slomoVideos: return PickerFilter.subtypeCondition(.slomo)
        case .timelapseVideos: return PickerFilter.subtypeCondition(.timelapse)
        case .animatedImages: return PickerFilter.subtypeCondition(.animated)
        case .types(let types):
            let originals = Set(types.flatMap(\.knownConformingTypes)).map(\.identifier).sorted()
            var condition = "type = ANY(\(bind(originals)))"
            if types.contains(.jpeg) {
                let sources = UTType.compatibleJPEGSources.map(\.identifier)
                condition = "(\(condition) OR (type = ANY(\(bind(sources))) AND NOT \(PickerFilter.subtypeCondition(.animated))))"
            }
            return condition
        // An empty any() admits nothing and an empty all() everything, as `matches` says.
        case .any(let filters):
            return filters.isEmpty ? "FALSE" : "(" + filters.map { condition($0) }.joined(separator: " OR ") + ")"
        case .all(let filters):
            return filters.isEmpty ? "TRUE" : "(" + filters.map { condition($0) }.joined(separator: " AND ") + ")"
        case .not(let filter):
            return "NOT \(condition(filter))"
        }
    }

    /// The assets of `album`.
    mutating func inAlbum(_ album: String) -> String {
        "identifier IN (SELECT asset FROM albumAsset WHERE album = \(bind(album)))"
    }

    /// The assets in `app`'s selection: chosen, or in an album it follows, found by `lookup`.
    mutating func inSelection(of app: String, by lookup: SelectionLookup) -> String {
        let app = bind(app)
        switch lookup {
        case .hashed:
            return """
                (identifier IN (SELECT asset FROM appSelection WHERE app = \(app)) \
                OR identifier IN (SELECT asset FROM albumAsset WHERE album IN (SELECT album FROM appSelectionAlbum WHERE app = \(app))))
                """
        case .probed:
            // OFFSET 0 keeps PostgreSQL from turning the EXISTS into a hashed lookup (it would
            // choose that by the whole scan's estimated rows, not the page's).
            return """
                (EXISTS (SELECT 1 FROM appSelection s WHERE s.app = \(app) AND s.asset = asset.identifier OFFSET 0) \
                OR EXISTS (SELECT 1 FROM appSelectionAlbum f JOIN albumAsset a ON a.album = f.album \
                WHERE f.app = \(app) AND a.asset = asset.identifier OFFSET 0))
                """
        }
    }

    /// File names containing `word` (case aside); `%`, `_` and `\` in it are matched as themselves.
    /// The trigram index on `lower(fileName)` serves it when the planner expects few matches.
    mutating func fileNameContains(_ word: String) -> String {
        let escaped = word.lowercased().replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
        return "lower(fileName) LIKE \(bind("%" + escaped + "%")) ESCAPE '\\'"
    }
}

/// How a limited app's page finds the selection's assets. PostgreSQL's planner picks the lookup
/// by the rows the whole scan would read, not the page's, so the catalog picks it instead.
enum SelectionLookup {
    /// Every member hashed once, then the library walked in order: cheap for a small selection,
    /// and for counting.
    case hashed
    /// The library walked in order, each asset probed in the selection's index: cheap when the
    /// selection is a large share of the library, so a page is found after few rows.
    case probed

    /// The cheaper lookup for a page of `limit` assets out of `matching` (what the query counts
    /// for the app) in a library of `library` assets: walking reads about
    /// `limit × library / matching` rows, hashing reads all `matching`.
    init(limit: Int, matching: Int, library: Int) {
        let walked = Double(limit + 1) * Double(library) / Double(max(matching, 1))
        self = walked < Double(matching) ? .probed : .hashed
    }
}

/// Library order in PostgreSQL and its keyset condition, on the cursor's creation date in
/// microseconds since 1970 (what a PostgreSQL page's cursor holds, exactly as stored).
extension Catalog.LibraryOrder {
    var postgresOrderBy: String { orderBy }

    func postgresAfter(_ cursor: LibraryCursor, _ statement: inout PostgresStatement) throws(LightboxError) -> String {
        guard let microseconds = Int64(cursor.storedDate) else { throw LibraryCursor.invalid }
        let date = "(TIMESTAMPTZ 'epoch' + \(statement.bind(microseconds)) * INTERVAL '1 microsecond')"
        let identifier = statement.bind(cursor.identifier)
        return switch self {
        case .newestFirst: "(creationDate <= \(date) AND (creationDate < \(date) OR identifier > \(identifier)))"
        case .oldestFirst: "(creationDate >= \(date) AND (creationDate > \(date) OR identifier < \(identifier)))"
        }
    }
}
