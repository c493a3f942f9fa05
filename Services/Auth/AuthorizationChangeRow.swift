import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// A row of the change log, read by position; the assets added and removed are stored as JSON lists.
/// (Public, as a public type's conformance to a public protocol must be.)
extension AuthorizationChange: PositionalRecord {
    public enum Columns: String, CaseIterable, ColumnExpression {
        case token, app, level, status, added, removed, at
    }

    public init(row: inout PositionalRow<Columns>) throws {
        self.init(token: try row.read(.token), app: try row.read(.app), level: AccessLevel(rawValue: try row.read(.level)) ?? .readWrite,
                  status: AuthorizationStatus(rawValue: try row.read(.status)) ?? .notDetermined,
                  added: Self.strings(try row.read(.added)), removed: Self.strings(try row.read(.removed)), at: try row.read(.at))
    }

    private static func strings(_ text: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }
}
