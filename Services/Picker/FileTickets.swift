import Foundation
import LightboxProtocol
import LightboxTransport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One-time tickets for the delivery socket (`provider.open`). Each holds the read-only descriptor
/// it delivers, and is bound to the app that asked and to the process that asked (pid and uid from
/// its ipc connection). A ticket is gone after its first presentation, whatever the outcome, or
/// after `lifetime`; its descriptor is closed then. Bounded per app and in all.
final class FileTickets: Sendable {
    /// A ticket's descriptor and what it was issued for.
    struct Ticket: Sendable {
        var app: String
        var asset: String
        var process: PeerCredentials
        var fileSize: Int64
        var expiresAt: ContinuousClock.Instant
        /// nil while the file is being prepared (the ticket is counted, not yet handed out).
        var descriptor: Int32?
        var sealedBytes: Int64
    }

    /// A ticket counted against the bounds before its file is prepared.
    struct Reservation: Sendable {
        let ticket: String
    }

    let lifetime: Duration
    let maximumPerApp: Int
    let maximumTotal: Int
    /// Bytes of sealed memory copies held at once (they live in memory until presented or expired).
    let maximumSealedBytes: Int64
    private let tickets = Mutex<[String: Ticket]>([:])

    init(lifetime: Duration = .seconds(30), maximumPerApp: Int = 16, maximumTotal: Int = 1024, maximumSealedBytes: Int64 = 512 << 20) {
        self.lifetime = lifetime
        self.maximumPerApp = maximumPerApp
        self.maximumTotal = maximumTotal
        self.maximumSealedBytes = maximumSealedBytes
    }

    /// Counts a new ticket for `app` and `process`, or refuses with `busy` past a bound.
    /// `sealedBytes` is the size of the memory copy it will hold (0 for a file of the library).
    func reserve(app: String, asset: String, process: PeerCredentials, fileSize: Int64, sealedBytes: Int64) throws(LightboxError) -> Reservation {
        closeExpired()
        let ticket = "lbf_" + SecureRandom.token(bytes: 32)
        let expiresAt = ContinuousClock.now + lifetime
        let refusal: LightboxError? = tickets.withLock { tickets in
            if tickets.count >= maximumTotal {
                return LightboxError(.busy, "The picker holds \(maximumTotal) undelivered file tickets, its limit; present the ones issued or use provider.load.")
            }
            if tickets.values.lazy.filter({ $0.app == app }).count >= maximumPerApp {
                return LightboxError(.busy, "App \(app) holds \(maximumPerApp) undelivered file tickets, its limit; present them on the delivery socket first.")
            }
            if sealedBytes > 0, tickets.values.reduce(0, { $0 + $1.sealedBytes }) + sealedBytes > maximumSealedBytes {
                return LightboxError(.busy, "The picker holds as many copies for delivery as its memory allows; present the tickets issued or use provider.load.")
            }
            tickets[ticket] = Ticket(app: app, asset: asset, process: process, fileSize: fileSize, expiresAt: expiresAt, descriptor: nil,
                                     sealedBytes: sealedBytes)
            return nil
        }
        if let refusal { throw refusal }
        return Reservation(ticket: ticket)
    }

    /// Gives a reserved ticket its descriptor (the store owns it from now on). False when the
    /// reservation expired meanwhile; the descriptor is closed then.
    func fill(_ reservation: Reservation, with descriptor: Int32) -> Bool {
        let filled = tickets.withLock { tickets -> Bool in
            guard tickets[reservation.ticket] != nil else { return false }
            tickets[reservation.ticket]?.descriptor = descriptor
            return true
        }
        if !filled { close(descriptor) }
        return filled
    }

    /// Drops a reservation whose file could not be prepared.
    func cancel(_ reservation: Reservation) {
        if let ticket = tickets.withLock({ $0.removeValue(forKey: reservation.ticket) }), let descriptor = ticket.descriptor {
            close(descriptor)
        }
    }

    /// Removes and returns a presented ticket (an expired one too, so the presenter can be told);
    /// nil for a ticket never issued, used already, swept after expiring or still being prepared.
    /// The caller closes the descriptor.
    func take(_ ticket: String) -> Ticket? {
        let taken = tickets.withLock { tickets -> Ticket? in
            guard tickets[ticket]?.descriptor != nil else { return nil }
            return tickets.removeValue(forKey: ticket)
        }
        return taken
    }

    /// Closes the descriptors of tickets past their lifetime; returns them (for the audit trail).
    @discardableResult
    func closeExpired(now: ContinuousClock.Instant = .now) -> [Ticket] {
        let expired = tickets.withLock { tickets -> [Ticket] in
            let keys = tickets.filter { $0.value.expiresAt <= now }.map(\.key)
            return keys.compactMap { tickets.removeValue(forKey: $0) }
        }
        for ticket in expired { if let descriptor = ticket.descriptor { close(descriptor) } }
        return expired.filter { $0.descriptor != nil }
    }

    /// Closes every descriptor held (at shutdown).
    func closeAll() {
        let all = tickets.withLock { tickets in
            defer { tickets.removeAll() }
            return Array(tickets.values)
        }
        for ticket in all { if let descriptor = ticket.descriptor { close(descriptor) } }
    }

    var count: Int { tickets.withLock { $0.count } }
}
