import Foundation
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

    private let storage: any LibraryChangeStorage
    private var view: View?
    private var watchers: [String: [Watcher]] = [:]
    /// The newest token already sent to watchers; nil until `start`.
    private var delivered: Int64?
    /// Rung after each write; the delivery loop (`run()`) wakes for it. Rings while it delivers
    /// come to one more round.
    private nonisolated let rings: AsyncStream<Void>
    private nonisolated let ring: AsyncStream<Void>.Continuation

    init(storage: any LibraryChangeStorage) {
        self.storage = storage
        (rings, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Starts from the newest change recorded (watchers replay older ones with `since`).
    func start(viewing view: @escaping View) async throws {
        self.view = view
        delivered = try await storage.latestChangeToken()
    }

    /// Called after a write: delivery runs in the loop, off the writer's path.
    nonisolated func libraryChanged() {
        ring.yield()
    }

    /// Delivers the changes after each write — this picker's, and those other pickers sharing the
    /// log announce — until the task running it (a child of the picker's serving) is cancelled.
    /// One loop delivers both, so every watcher gets each change once, in token order.
    func run() async {
        let ring = self.ring
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [storage] in await storage.followChangesElsewhere { ring.yield() } }
            for await _ in rings { await deliver() }
            group.cancelAll()
        }
    }

    /// Whether `app` has a watch open.
    func isWatched(_ app: String) -> Bool { watchers[app]?.isEmpty == false }

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
            guard let after = delivered, let entries = try? await storage.changes(after: after, limit: 1000),
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
