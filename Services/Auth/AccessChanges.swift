import Foundation
import LightboxProtocol
import LightboxTransport
import Logging

/// Where a committed change of access goes: to the apps' watches and, before whoever made it is
/// answered, to the picker (which drops the app's cached decisions).
struct AccessChanges: Sendable {
    let broadcaster: ChangeBroadcaster
    let followers: DecisionFollowers
    let logger: Logger

    func publish(_ changes: [AuthorizationChange]) async {
        guard !changes.isEmpty else { return }
        for change in changes {
            logger.info("access changed", metadata: ["app": "\(change.app)", "level": "\(change.level)", "status": "\(change.status)",
                                                     "added": "\(change.added.count)", "removed": "\(change.removed.count)"])
        }
        await broadcaster.publish(changes)
        // In force on the picker before whoever made the change is answered.
        await followers.announce(Set(changes.map(\.app)))
    }

    /// A change of the location `app` receives: no status changed, so watchers hear nothing, but
    /// the picker drops the app's decisions before whoever made it is answered.
    func announceLocation(of app: String) async {
        logger.info("location changed", metadata: ["app": "\(app)"])
        await followers.announce([app])
    }
}
