import Foundation
import LightboxPostgres
import PostgresNIO

/// Library changes reaching every picker that shares the database: a transaction that adds change
/// rows sends a wake-up on `changeChannel` (delivered only once it commits, with no payload: a
/// woken picker reads the log from the last token it delivered), and every picker listens.
extension PostgresCatalogStorage {
    static let changeChannel = "lightbox_library_change"

    static func wakeOtherPickers(on connection: PostgresConnection, logger: Logger) async throws {
        try await PostgresWakeups.notify(changeChannel, "", on: connection, logger: logger)
    }

    /// Calls `changedElsewhere` for each wake-up (and for `.listening`: changes may have been missed)
    /// until cancelled; `run()` listens.
    func followChangesElsewhere(_ changedElsewhere: @escaping @Sendable () -> Void) async {
        // Capacity 2: any number of wake-ups not yet read come to one more read of the log.
        for await _ in wakeups.wakeups(on: [Self.changeChannel], capacity: 2) { changedElsewhere() }
    }
}
