import GRDB
import LightboxStorage

/// One of an app's statuses as the `authorization` table holds it: a level and its status, by name.
struct StatusRow: PositionalRecord {
    enum Columns: String, CaseIterable, ColumnExpression {
        case level, status
    }

    var level: String
    var status: String

    init(row: inout PositionalRow<Columns>) throws {
        level = try row.read(.level)
        status = try row.read(.status)
    }
}
