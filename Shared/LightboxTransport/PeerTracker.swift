import Foundation
import Synchronization

/// The ROUTER connections known to be gone (their send met EHOSTUNREACH) or dropped for not
/// reading. Handlers ask it through `Responder.isConnected`; the I/O thread ignores their requests.
/// Routing ids are never reused by a ROUTER, so remembering the latest few thousand is enough.
final class PeerTracker: Sendable {
    static let remembered = 16_384
    private struct State {
        var gone: Set<Data> = []
        var order: [Data] = []
    }
    private let state = Mutex(State())

    func markGone(_ peer: Data) {
        state.withLock { state in
            guard state.gone.insert(peer).inserted else { return }
            state.order.append(peer)
            if state.order.count > Self.remembered {
                let forgotten = state.order.prefix(Self.remembered / 4)
                state.order.removeFirst(forgotten.count)
                for peer in forgotten { state.gone.remove(peer) }
            }
        }
    }

    func isGone(_ peer: Data) -> Bool {
        state.withLock { $0.gone.contains(peer) }
    }
}
