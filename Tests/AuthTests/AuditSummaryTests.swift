import Foundation
import GRDB
import LightboxProtocol
import Testing
@testable import Auth

/// The privacy report's counts, from the trail's typed kinds: repeats count their times, refusals
/// and other apps' lines and lines before the period do not.
@Suite struct AuditSummaryTests {
    @Test func countsPicksItemsAndReadsOfOneAppSinceATime() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("summary-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = AuditLog(storage: try SQLiteAuthStorage(at: folder.appendingPathComponent("auth.sqlite")))
        let weekAgo = Date().addingTimeInterval(-7 * 86_400), now = Date()
        func line(_ operation: AuditOperation, _ outcome: AuditOutcome, count: Int = 1, asset: String? = nil, at: Date = now,
                  app: String = "postcard") -> AuditEntry {
            AuditEntry(app: app, operation: operation, assetCount: count, outcome: outcome, at: at, asset: asset)
        }
        var repeated = line(.pick(.opened), .waiting, count: 2)
        repeated.times = 2
        log.record([
            line(.pick(.opened), .waiting, count: 2), repeated,
            line(.pick(.answered), .delivered, count: 3), line(.pick(.answered), .cancelled, count: 0),
            line(.load, .completed, asset: "A/L0/001"), line(.open, .delivered(toProcess: 42, user: 1000), asset: "B/L0/001"),
            line(.load, .refused("wrongApp"), count: 0, asset: "C/L0/001"), line(.describe, .ok, asset: "D/L0/001"),
            // Before the week, and another app's: not counted.
            line(.pick(.opened), .waiting, at: weekAgo.addingTimeInterval(-60)), line(.load, .completed, asset: "E/L0/001", at: weekAgo.addingTimeInterval(-60)),
            line(.pick(.opened), .waiting, app: "other"),
        ])
        let summary = try await log.summary(AuditSummaryRequest(app: "postcard", since: weekAgo))
        #expect(summary.picksOpened == 3)
        #expect(summary.itemsReceived == 3)
        #expect(summary.reads == 2)
        #expect(summary.recentAssets == ["B/L0/001", "A/L0/001"])
        #expect(summary.lastAccess != nil)

        // The owner's own lines are not the app's access; an app with no lines has none.
        log.record([line(.settings, .settings(readWrite: .limited, addOnly: .notDetermined), app: "quiet")])
        let quiet = try await log.summary(AuditSummaryRequest(app: "quiet", since: weekAgo, recentLimit: 1_000))
        #expect(quiet.picksOpened == 0 && quiet.itemsReceived == 0 && quiet.reads == 0 && quiet.recentAssets.isEmpty && quiet.lastAccess == nil)
    }
}
