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

    func followChangesElsewhere(_ changedElsewhere: @escaping @Sendable () -> Void) async {
        let wakeups = PostgresWakeups(storage: postgres, channels: [Self.changeChannel])
        // Subscribed before listening starts, so the first `.listening` is not missed. Capacity 2:
        // any number of wake-ups not yet read come to one more read of the log.
        let stream = wakeups.wakeups(capacity: 2)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await wakeups.run() }
            for await _ in stream { changedElsewhere() }
            group.cancelAll()
        }
    }
}
