import Foundation
import LightboxProtocol
import LightboxTransport

/// The two loops that remove delivered files: when the owner revokes a desktop app (heard from
/// the picker's `portal.revocations`), and once they are older than the retention period. Both run
/// as child tasks of the portal's service until it stops.
extension PortalBackend {
    /// Follows the owner's revocations for as long as the task runs, asking again whenever the
    /// connection to the picker was lost (a restarted picker has forgotten the request).
    func followRevocations() async {
        while !Task.isCancelled {
            do {
                let picker = try await links.picker()
                try await Self.untilDisconnected(picker) { [self] in
                    for try await reply in picker.send(.portalRevocations, Empty(), timeout: .seconds(365 * 86_400)) where reply.status == .event {
                        removeDelivered(of: try reply.body(PortalAppRevoked.self))
                    }
                }
            } catch {
                guard !Task.isCancelled else { return }
                logger.notice("following the owner's revocations again in a moment", metadata: ["reason": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(2))
        }
    }

    func removeDelivered(of revoked: PortalAppRevoked) {
        guard let app = try? DesktopAppID(validating: revoked.app) else {
            logger.warning("the picker named a revoked app that is not a desktop app id", metadata: ["app": "\(revoked.app.prefix(80))"])
            return
        }
        let removed = configuration.deliveries.removeAll(of: app)
        logger.info("the owner revoked a desktop app; its delivered files are removed", metadata: ["app": "\(app)", "picks": "\(removed)"])
    }

    /// Removes picks older than the retention period, now and then, for as long as the task runs.
    func sweepDeliveries() async {
        let retention = configuration.retention
        let interval = min(max(retention / 4, .seconds(1)), .seconds(600))
        let seconds = retention.seconds
        while !Task.isCancelled {
            let removed = configuration.deliveries.sweep(before: Date().addingTimeInterval(-seconds))
            if removed > 0 { logger.info("removed delivered files past their retention", metadata: ["picks": "\(removed)"]) }
            try? await Task.sleep(for: interval)
        }
    }
}
