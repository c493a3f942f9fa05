import Foundation
import LightboxProtocol

/// How the owner narrows the pick sheet's grid beside a filter: a search, one album, and where the
/// grid starts ("jump to year": assets older than `before`). Every part is an SQL condition the
/// keyset page is read with.
struct OwnerBrowse: Sendable {
    var search: LibrarySearch?
    var album: String?
    var before: Date?

    init(search: LibrarySearch? = nil, album: String? = nil, before: Date? = nil) {
        self.search = search?.isEmpty == true ? nil : search
        self.album = album
        self.before = before
    }

    /// The browse of an `owner.assets` request; `badRequest` for a time zone nobody has.
    init(_ request: ListAssetsRequest) throws(LightboxError) {
        var timeZone = TimeZone.current
        if let name = request.timeZone {
            guard let named = TimeZone(identifier: name) else {
                throw LightboxError(.badRequest, "timeZone \"\(name.prefix(64))\" is not a time zone; give an IANA name such as Europe/Lisbon, or leave it out.")
            }
            timeZone = named
        }
        self.init(search: request.search.map { LibrarySearch(parsing: $0, timeZone: timeZone) }, album: request.album, before: request.before)
    }

    var isEmpty: Bool { search == nil && album == nil && before == nil }
}
