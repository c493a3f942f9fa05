import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// A line of the audit trail, read by position (public, as a public type's conformance to a public protocol must be).
extension AuditEntry: PositionalRecord {
    public enum Columns: String, CaseIterable, ColumnExpression {
        case id, app, operation, assetCount, outcome, at, bytes, asset, times, lastAt
    }

    public init(row: inout PositionalRow<Columns>) throws {
        self.init(id: try row.read(.id), app: try row.read(.app), operation: try row.read(.operation), assetCount: try row.read(.assetCount),
                  outcome: try row.read(.outcome), at: try row.read(.at), bytes: try row.read(.bytes), asset: try row.read(.asset),
                  times: AuditLog.times(try row.read(.times)), lastAt: try row.read(.lastAt))
    }
}
