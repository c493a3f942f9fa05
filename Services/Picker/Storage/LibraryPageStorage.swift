import Foundation
import LightboxProtocol

/// The library a page at a time, continued by a keyset cursor (not an offset), so the first and the
/// thousandth page cost the same.
protocol LibraryPageStorage: Sendable {
    /// The owner's view: newest first, every asset `filter` lets through, narrowed by the pick
    /// sheet's search, album and starting date.
    func page(filter: PickerFilter?, browse: OwnerBrowse, limit: Int, after cursor: LibraryCursor?) async throws
        -> (assets: [AssetSummary], next: LibraryCursor?)
    /// An app's query, limited to `app`'s selection when given (a join, however large it is), with
    /// the total it matches.
    func assets(matching query: AssetQuery, inSelectionOf app: String?, after cursor: LibraryCursor?) async throws
        -> (page: [AssetSummary], total: Int, next: LibraryCursor?)
    /// One page of an album's assets, newest first.
    func albumPage(_ album: String, limit: Int, after cursor: LibraryCursor?) async throws -> (assets: [AssetSummary], next: LibraryCursor?)
}
