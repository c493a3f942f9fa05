import Foundation
import LightboxProtocol
import LightboxTransport
import Testing
@testable import Picker

#if canImport(Glibc)
import Glibc
#endif

/// The delivery tickets' bounds and lifetimes: one use, bounded per app and in all, descriptors
/// closed when a ticket expires or the store closes.
@Suite struct FileTicketsTests {
    let process = PeerCredentials(processID: 4242, userID: 1000, groupID: 1000)

    /// A pipe's write end for the store to hold; its read end tells whether it is still open
    /// (a read finds end-of-file only once every write end is closed), whatever numbers other
    /// tests' descriptors take meanwhile.
    final class Held {
        let readEnd: Int32
        let writeEnd: Int32
        init() {
            var ends: [Int32] = [-1, -1]
            _ = pipe(&ends)
            _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
            (readEnd, writeEnd) = (ends[0], ends[1])
        }
        var isOpen: Bool {
            var byte: UInt8 = 0
            return read(readEnd, &byte, 1) != 0
        }
        deinit { close(readEnd) }
    }

    @Test func aTicketIsTakenOnceWithWhatItWasIssuedFor() throws {
        let tickets = FileTickets()
        let reservation = try tickets.reserve(app: "demo", asset: "A/L0/001", process: process, fileSize: 7, sealedBytes: 0)
        #expect(reservation.ticket.hasPrefix("lbf_") && reservation.ticket.count >= 40)
        // Not presentable while its file is being prepared.
        #expect(tickets.take(reservation.ticket) == nil)
        let file = Held()
        #expect(tickets.fill(reservation, with: file.writeEnd))
        let taken = try #require(tickets.take(reservation.ticket))
        #expect(taken.app == "demo" && taken.asset == "A/L0/001" && taken.process == process && taken.fileSize == 7
                && taken.descriptor == file.writeEnd)
        #expect(tickets.take(reservation.ticket) == nil)
        // Taking hands the descriptor over: the store has not closed it.
        #expect(file.isOpen)
        close(file.writeEnd)
    }

    @Test func ticketsAreBoundedPerAppInAllAndInSealedBytes() throws {
        let tickets = FileTickets(maximumPerApp: 2, maximumTotal: 3, maximumSealedBytes: 100)
        _ = try tickets.reserve(app: "a", asset: "x", process: process, fileSize: 1, sealedBytes: 0)
        _ = try tickets.reserve(app: "a", asset: "x", process: process, fileSize: 1, sealedBytes: 0)
        #expect(throws: LightboxError.self) { try tickets.reserve(app: "a", asset: "x", process: process, fileSize: 1, sealedBytes: 0) }
        let sealed = try tickets.reserve(app: "b", asset: "x", process: process, fileSize: 60, sealedBytes: 60)
        #expect(throws: LightboxError.self) { try tickets.reserve(app: "c", asset: "x", process: process, fileSize: 1, sealedBytes: 0) }
        tickets.cancel(sealed)
        #expect(throws: LightboxError.self) { try tickets.reserve(app: "c", asset: "x", process: process, fileSize: 200, sealedBytes: 200) }
        do {
            _ = try tickets.reserve(app: "c", asset: "x", process: process, fileSize: 1, sealedBytes: 0)
            _ = try tickets.reserve(app: "c", asset: "x", process: process, fileSize: 1, sealedBytes: 0)
            Issue.record("a fourth ticket was issued")
        } catch {
            #expect(error.code == .busy)
        }
    }

    @Test func expiredTicketsAndClosingReleaseTheirDescriptors() throws {
        let tickets = FileTickets(lifetime: .seconds(30))
        let expiring = try tickets.reserve(app: "a", asset: "x", process: process, fileSize: 1, sealedBytes: 0)
        let kept = try tickets.reserve(app: "a", asset: "y", process: process, fileSize: 1, sealedBytes: 0)
        let first = Held()
        let second = Held()
        #expect(tickets.fill(expiring, with: first.writeEnd) && tickets.fill(kept, with: second.writeEnd))
        #expect(tickets.closeExpired().isEmpty && first.isOpen)
        let expired = tickets.closeExpired(now: .now + .seconds(31))
        #expect(expired.map(\.asset).sorted() == ["x", "y"])
        #expect(!first.isOpen && !second.isOpen)
        #expect(tickets.take(expiring.ticket) == nil && tickets.count == 0)

        let held = try tickets.reserve(app: "a", asset: "z", process: process, fileSize: 1, sealedBytes: 0)
        let third = Held()
        #expect(tickets.fill(held, with: third.writeEnd))
        tickets.closeAll()
        #expect(!third.isOpen && tickets.count == 0)
        // A reservation dropped meanwhile closes the descriptor it is given.
        let fourth = Held()
        #expect(!tickets.fill(held, with: fourth.writeEnd))
        #expect(!fourth.isOpen)
    }
}
