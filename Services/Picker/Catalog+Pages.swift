import Foundation
import LightboxProtocol

/// The library a page at a time (`LibraryPageStorage`).
extension Catalog {
    /// The owner's view: newest first, every asset a filter lets through, narrowed by the pick
    /// sheet's search, album and starting date (`OwnerBrowse`).
    func page(filter: PickerFilter?, browse: OwnerBrowse = OwnerBrowse(), limit: Int, after cursor: LibraryCursor?) async throws
        -> (assets: [AssetSummary], next: LibraryCursor?) {
        try await storage.page(filter: filter, browse: browse, limit: limit, after: cursor)
    }

    /// An app's query: by media type and date range, limited to `app`'s selection (a join) when
    /// given; paged by cursor, or by offset when there is none. Also returns the total count.
    func assets(matching query: AssetQuery, inSelectionOf app: String? = nil) async throws
        -> (page: [AssetSummary], total: Int, next: LibraryCursor?) {
        let cursor = try query.after.map { text throws(LightboxError) in try LibraryCursor(decoding: text) }
        return try await storage.assets(matching: query, inSelectionOf: app, after: cursor)
    }

    /// One page of an album's assets, newest first.
    func albumPage(_ album: String, limit: Int, after cursor: LibraryCursor?) async throws -> (assets: [AssetSummary], next: LibraryCursor?) {
        try await storage.albumPage(album, limit: limit, after: cursor)
    }
}
