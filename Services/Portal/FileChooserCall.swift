import Foundation
import Synchronization

/// The response codes of xdg-desktop-portal requests.
enum PortalResponse: UInt32, Sendable {
    case success = 0
    /// The person cancelled (or the app closed the request).
    case cancelled = 1
    /// The request ended some other way; lightbox-portal logs why.
    case other = 2
}

/// A FileChooser method call (OpenFile, SaveFile, SaveFiles): its arguments as the frontend sent
/// them, and the Request object lightbox-portal exported at its handle.
struct FileChooserCall: Sendable {
    let call: DBusMethodCall
    let handle: String
    let appID: String
    let options: DBusValue
    /// When the call arrived, for the log's timings.
    let received: ContinuousClock.Instant
    var registration: DBusRegistration?
    let progress: RequestProgress

    var method: String { call.method }

    /// Reads `(osssa{sv})`; GDBus has checked the signature against the interface description.
    init?(_ call: DBusMethodCall) {
        guard call.parameters.count == 5, let handle = call.parameters.child(0)?.string, let appID = call.parameters.child(1)?.string,
              let options = call.parameters.child(4), options.isOfType("a{sv}") else { return nil }
        self.call = call
        self.handle = handle
        self.appID = appID
        self.options = options
        received = .now
        progress = RequestProgress(app: appID)
    }

    func respond(_ response: PortalResponse, uris: [String]? = nil, currentFilter: DBusValue? = nil) {
        call.reply(.fileChooserReply(response.rawValue, uris: uris, currentFilter: currentFilter))
    }
}

/// The requests being answered, by handle, so that `Close` on a handle reaches its request. A
/// request is entered as it arrives, on the loop's thread, so a Close that follows at once finds it.
final class OpenRequests: Sendable {
    enum Kind: Sendable {
        /// Being answered by lightbox-portal (a pick, or not yet decided).
        case answering(RequestProgress)
        /// Answered by the fallback backend, which gets the Close too.
        case forwarded
    }

    private let open = Mutex<[String: Kind]>([:])

    func begin(_ handle: String, _ kind: Kind) {
        open.withLock { $0[handle] = kind }
    }

    func end(_ handle: String) {
        open.withLock { $0[handle] = nil }
    }

    func kind(of handle: String) -> Kind? { open.withLock { $0[handle] } }
}

/// How far a request has come — the pick the picker filed for it — and whether the app closed it.
final class RequestProgress: Sendable {
    private struct State {
        var pick: String?
        var closed = false
    }

    private let state = Mutex(State())
    /// The app id the request came with, to withdraw its pick.
    let app: String

    init(app: String) {
        self.app = app
    }

    /// The picker filed the pick; true when the app has closed the request already (the pick is
    /// then to be withdrawn).
    func started(_ pick: String) -> Bool {
        state.withLock { state in
            state.pick = pick
            return state.closed
        }
    }

    /// The app closed the request; the pick to withdraw, if the picker has filed it.
    func close() -> String? {
        state.withLock { state in
            state.closed = true
            return state.pick
        }
    }

    var isClosed: Bool { state.withLock { $0.closed } }
}
