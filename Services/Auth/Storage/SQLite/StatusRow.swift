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

    var stored: AuthorizationStore.StoredStatus

    init(row: inout PositionalRow<Columns>) throws {
        stored = AuthorizationStore.StoredStatus(level: try row.read(.level), status: try row.read(.status), expiresAt: try row.read(.expiresAt),
                                                 afterExpiry: try row.read(.afterExpiry))
    }
}
