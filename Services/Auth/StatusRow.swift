import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// One of an app's statuses as the `authorization` table holds it: a level, its status, and the
/// term of a grant that ends.
struct StatusRow: PositionalRecord {
    enum Columns: String, CaseIterable, ColumnExpression {
        case level, status, expiresAt, afterExpiry
    }

    var level: String
    var status: String
    var expiresAt: Date?
    var afterExpiry: String?

    init(row: inout PositionalRow<Columns>) throws {
        level = try row.read(.level)
        status = try row.read(.status)
        expiresAt = try row.read(.expiresAt)
        afterExpiry = try row.read(.afterExpiry)
    }

    /// The grant's term, when it has one.
    var term: GrantTerm? {
        expiresAt.map { GrantTerm(until: $0, then: afterExpiry.flatMap(GrantTerm.Afterwards.init(rawValue:))) }
    }
}
