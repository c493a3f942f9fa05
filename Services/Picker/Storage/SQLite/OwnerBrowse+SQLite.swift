import Foundation
import GRDB
import LightboxProtocol

/// Every part of the owner's browse as an SQL condition the keyset page is read with.
extension OwnerBrowse {
    func conditions(_ db: Database) throws -> [SQLExpression] {
        var conditions = try search?.conditions(db) ?? []
        if let album { conditions.append(Catalog.inAlbum(album)) }
        if let before { conditions.append(Column("creationDate") < before) }
        return conditions
    }
}
