import Foundation
import GRDB
import LightboxProtocol
import LightboxStorage

/// A row of the change log, read by position; the assets (and albums) added and removed are stored as
/// JSON lists (the albums' null when none).
/// (Public, as a public type's conformance to a public protocol must be.)
extension AuthorizationChange: PositionalRecord {
    public enum Columns: String, CaseIterable, ColumnExpression {
        case token, app, level, status, added, removed, at, addedAlbums, removedAlbums
    }

    public init(row: inout PositionalRow<Columns>) throws {
        self.init(token: try row.read(.token), app: try row.read(.app), level: AccessLevel(rawValue: try row.read(.level)) ?? .readWrite,
                  status: AuthorizationStatus(rawValue: try row.read(.status)) ?? .notDetermined,
                  added: Self.strings(try row.read(.added)), removed: Self.strings(try row.read(.removed)), at: try row.read(.at),
                  addedAlbums: (try row.read(.addedAlbums) as String?).map(Self.strings),
                  removedAlbums: (try row.read(.removedAlbums) as String?).map(Self.strings))
    }

    private static func strings(_ text: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }
}
