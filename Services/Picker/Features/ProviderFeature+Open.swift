import Foundation
import LightboxProtocol
import LightboxTransport
import Media

#if canImport(Glibc)
import Glibc
#endif

/// `provider.open`: what `provider.load` would stream, handed to a process on this host as a
/// read-only file descriptor on the delivery socket (`DeliverySocket`): a sealed memory copy when
/// metadata is removed or the process could change the file itself (same user, root), else the
/// original or the cached derivative itself.
extension ProviderFeature {
    func open(_ app: AppID, _ body: OpenRequest, _ context: inout RequestContext) async throws -> FileTicket {
        guard let process = context.request.peerCredentials, let socket = deliverySocketPath() else {
            throw LightboxError(.badRequest, "provider.open needs an ipc:// connection to the picker (a process on the same host); use provider.load.")
        }
        let loadable = try await loadable(body.token, as: body.type, by: app, context: context)
        let responder = context.responder
        let tickets = fileTickets
        let ticket = try await renditions.withDeliverableFile(for: loadable.asset, as: loadable.representation, removing: loadable.removal,
                                                   progress: { responder.progress($0) }) { [self] file in
            try await ticketForFile(file, loadable: loadable, app: app, process: process, tickets: tickets)
        }
        return FileTicket(ticket: ticket.ticket, socket: socket, fileSize: ticket.fileSize, type: loadable.representation,
                          suggestedName: loadable.asset.suggestedName, expiresIn: Int(tickets.lifetime.components.seconds))
    }

    /// Opens `file` read-only (a sealed copy of it when metadata was removed, or when `process`
    /// could write to the file itself: `SealedCopy.isNeeded`) and gives the descriptor to a new
    /// ticket for `process`.
    private func ticketForFile(
        _ file: URL, loadable: Loadable, app: AppID, process: PeerCredentials, tickets: FileTickets
    ) async throws -> (ticket: String, fileSize: Int64) {
        let opened: RegularFile
        do {
            opened = try RegularFile.open(file)
        } catch {
            logger.error("original missing", metadata: ["asset": "\(loadable.asset.identifier)", "error": "\(error)"])
            throw LightboxError(.notFound, "The original of this asset is missing from the library; the owner should re-import it.")
        }
        let size = opened.size
        let descriptor = opened.takeDescriptor()
        let sealed = SealedCopy.isNeeded(for: process, fileAt: descriptor,
                                         removesMetadata: Representations.removal(loadable.removal, for: loadable.asset) != .none)
        let reservation: FileTickets.Reservation
        do {
            reservation = try tickets.reserve(app: app.rawValue, asset: loadable.asset.identifier, process: process, fileSize: size,
                                              sealedBytes: sealed ? size : 0)
        } catch {
            close(descriptor)
            throw error
        }
        var delivered = descriptor
        if sealed {
            let name = "lightbox-\(loadable.asset.identifier.prefix(8))"
            do {
                delivered = try await renderPool.run { try SealedCopy.make(of: descriptor, size: size, name: name) }
                close(descriptor)
            } catch {
                close(descriptor)
                tickets.cancel(reservation)
                throw error
            }
        }
        guard tickets.fill(reservation, with: delivered) else {
            throw LightboxError(.timeout, "The file took longer to prepare than a delivery ticket lives; use provider.load.")
        }
        return (reservation.ticket, size)
    }

    /// Opens the delivery socket beside an ipc endpoint; over tcp there is none.
}
