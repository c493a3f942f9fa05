import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// An album row, read by position (public, as a public type's conformance to a public protocol must be).
extension Album: PositionalRecord {
    public enum Columns: String, CaseIterable, ColumnExpression {
        case identifier, title, createdAt
    }

    public init(row: inout PositionalRow<Columns>) throws {
        self.init(identifier: try row.read(.identifier), title: try row.read(.title), createdAt: try row.read(.createdAt))
    }

    static let byIdentifier = "SELECT \(selectList) FROM album WHERE identifier = ?"
    static let inOrder = "SELECT \(selectList) FROM album ORDER BY createdAt, identifier"
}
