import GRDB
import LightboxProtocol

/// A pick's filter as an SQL condition on the `asset` table, so the owner's pages are filtered by
/// SQLite rather than by reading the whole catalog into memory.
extension PickerFilter {
    var sqlCondition: SQLExpression {
        switch self {
        case .images: Column("mediaType") == MediaType.image.rawValue
        case .videos: Column("mediaType") == MediaType.video.rawValue
        case .livePhotos: Self.hasSubtype(.livePhoto)
        case .screenshots: Self.hasSubtype(.screenshot)
        case .panoramas: Self.hasSubtype(.panorama)
        case .bursts: Self.hasSubtype(.burst)
        case .slomoVideos: Self.hasSubtype(.slomo)
        case .timelapseVideos: Self.hasSubtype(.timelapse)
        case .animatedImages: Self.hasSubtype(.animated)
        case .types(let types): Self.deliverable(as: types)
        // An empty any() admits nothing and an empty all() everything, as `matches` says.
        case .any(let filters): filters.map(\.sqlCondition).joined(operator: .or)
        case .all(let filters): filters.map(\.sqlCondition).joined(operator: .and)
        case .not(let filter): !filter.sqlCondition
        }
    }

    /// Assets whose original is of one of `types` (or a type conforming to one), or that have a
    /// compatible JPEG when `public.jpeg` is listed: `PickerFilter.matches`'s rule, in SQL. The
    /// identifiers are bound as values.
    static func deliverable(as types: [UTType]) -> SQLExpression {
        let originals = Set(types.flatMap(\.knownConformingTypes)).map(\.identifier).sorted()
        var condition = originals.contains(Column("type"))
        if types.contains(.jpeg) {
            condition = condition || (UTType.compatibleJPEGSources.map(\.identifier).contains(Column("type")) && !hasSubtype(.animated))
        }
        return condition
    }

    /// `subtypes` holds names separated by commas ("animated,livePhoto"); pad it so a name only
    /// matches whole. The name is written into the SQL (it comes from the enum, never a client), so
    /// the condition is the very expression of the subtype's partial index and SQLite uses it.
    static func hasSubtype(_ subtype: MediaSubtype) -> SQLExpression {
        SQL(sql: subtypeCondition(subtype)).sqlExpression
    }

    static func subtypeCondition(_ subtype: MediaSubtype) -> String {
        "(',' || subtypes || ',') LIKE '%,\(subtype.rawValue),%'"
    }
}
