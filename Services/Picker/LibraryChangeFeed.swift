import Foundation
import GRDB
import LightboxProtocol
import LightboxTransport

/// Apps watching the library (`library.watch`): after every recorded change, each watcher gets the
/// new changes it may see, as `event` replies. Visibility is the app's current decision from
/// lightbox-auth, asked once per app per delivery; the picker only applies it.
actor LibraryChangeFeed {
    /// Watches kept per app; the oldest is ended when an app opens more.
    static let watchesPerApp = 16

    struct Watcher: Sendable {
        var responder: Responder
        /// The connection the watch came on and its launch (for the once-per-launch notice a decision sends).
        var origin: ConnectionLaunch
    }

    typealias View = @Sendable (_ app: String, _ origin: ConnectionLaunch) async throws -> LibraryView

    private let database: DatabasePool
    private var view: View?
    private var watchers: [String: [Watcher]] = [:]
    /// The newest token already sent to watchers.
    private var delivered: Int64
    /// Rung after each write; the delivery loop (`run()`) wakes for it. Rings while it delivers
    /// come to one more round.
    private nonisolated let rings: AsyncStream<Void>
    private nonisolated let ring: AsyncStream<Void>.Continuation

    init(database: DatabasePool) throws {
        self.database = database
        (rings, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        delivered = try database.read { db in try LibraryChangeLog.latestToken(in: db) }
    }

    func start(viewing view: @escaping View) {
        self.view = view
    }

    /// Called after a write: delivery runs in the loop, off the writer's path.
    nonisolated func libraryChanged() {
        ring.yield()
    }

    /// Delivers the changes after each write until the task running it (a child of the picker's
    /// serving) is cancelled.
    func run() async {
        for await _ in rings { await deliver() }
    }

    func add(_ watcher: Watcher, for app: String) {
        var list = watchers[app, default: []]
        if list.count >= Self.watchesPerApp {
            list.removeFirst().responder.fail(LightboxError(.cancelled, "Too many library watches open for \(app); this oldest one was closed."))
        }
        list.append(watcher)
        watchers[app] = list
    }

    /// Sends every change after the last delivered one, until none is left.
    private func deliver() async {
        while true {
            let after = delivered
            guard let entries = try? await database.detachedRead({ db in try LibraryChangeLog.entries(after: after, limit: 1000, in: db) }),
                  let last = entries.last else { return }
            delivered = last.token
            for (app, list) in watchers {
                guard let view, let first = list.first, let seen = try? await view(app, first.origin),
                      let changes = try? await seen.changes(in: entries) else { continue }
                for change in changes {
                    for watcher in list { watcher.responder.event(change) }
                }
            }
        }
    }
}
