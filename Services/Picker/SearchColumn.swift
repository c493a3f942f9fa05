/// The catalog columns the owner's search looks words up in, each with an index in library order
/// (`v10` of `CatalogDatabase`), compared without regard to case.
enum SearchColumn: String, CaseIterable {
    case city, country, camera

    var indexName: String { "asset_\(rawValue)_order" }
}
