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

    /// The assets in `app`'s selection: chosen, or in an album it follows. PostgreSQL's planner
    /// chooses between reading the selection and walking the library in order with a hashed lookup,
    /// by the selection's size.
    mutating func inSelection(of app: String) -> String {
        let app = bind(app)
        return """
            (identifier IN (SELECT asset FROM appSelection WHERE app = \(app)) \
            OR identifier IN (SELECT asset FROM albumAsset WHERE album IN (SELECT album FROM appSelectionAlbum WHERE app = \(app))))
            """
    }

    /// File names containing `word` (case aside); `%`, `_` and `\` in it are matched as themselves.
    /// The trigram index on `lower(fileName)` serves it when the planner expects few matches.
    mutating func fileNameContains(_ word: String) -> String {
        let escaped = word.lowercased().replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
        return "lower(fileName) LIKE \(bind("%" + escaped + "%")) ESCAPE '\\'"
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
