import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Logging

/// lightbox-portal's answers to xdg-desktop-portal: an OpenFile for photos or videos becomes a pick
/// on the owner's sheet, delivered as files; every other FileChooser call goes to the desktop's own
/// backend unchanged, and its answer comes back as it came.
///
/// Calls arrive on the GLib loop's thread (`receive`), which only exports the request's handle and
/// queues the call; each is then answered in a child task of the portal's service (`handle`), so a
/// person taking minutes to choose holds nothing else up.
final class PortalBackend: Sendable {
    struct Configuration: Sendable {
        /// The desktop's own backend (`gtk`, `gnome`, `kde`…) for everything that is not a photo
        /// request; without one such requests are answered 2.
        var fallback: String?
        var deliveries: DeliveryFolder
        var names: DesktopEntryNames
        /// How long delivered files are kept.
        var retention: Duration
    }

    /// What arrives from the bus.
    enum Event: Sendable {
        case fileChooser(FileChooserCall)
        case close(DBusMethodCall)
    }

    let configuration: Configuration
    let bus: SessionBus
    let interfaces: DBusInterfaces
    let links: ServiceLinks
    let requests = OpenRequests()
    let logger: Logger
    private let queue: AsyncStream<Event>.Continuation
    let events: AsyncStream<Event>

    /// `events` is where `receive` queues the calls for `handle`.
    init(_ configuration: Configuration, bus: SessionBus, interfaces: DBusInterfaces, links: ServiceLinks,
         events: (AsyncStream<Event>, AsyncStream<Event>.Continuation), logger: Logger) {
        self.configuration = configuration
        self.bus = bus
        self.interfaces = interfaces
        self.links = links
        self.logger = logger
        (self.events, queue) = events
    }

    /// No more calls are taken; those queued are still answered.
    func finishEvents() { queue.finish() }

    // MARK: On the loop's thread

    /// A FileChooser call: exports the Request object at its handle (the frontend sends Close
    /// there) and queues the call.
    func receive(fileChooser call: DBusMethodCall) {
        guard var request = FileChooserCall(call) else {
            call.fail(DBusError("org.freedesktop.DBus.Error.InvalidArgs", "\(call.method) takes (handle, app_id, parent_window, title, options)."))
            return
        }
        do throws(DBusError) {
            guard let requestInterface = interfaces.interface(PortalInterfaces.request) else {
                throw DBusError(DBusError.failed, "lightbox-portal has no description of \(PortalInterfaces.request).")
            }
            let queue = self.queue
            request.registration = try bus.export(requestInterface, at: request.handle) { close in queue.yield(.close(close)) }
        } catch {
            logger.error("could not export a request's handle", metadata: ["handle": "\(request.handle)", "error": "\(error)"])
            call.fail(error)
            return
        }
        requests.begin(request.handle, .answering(request.progress))
        queue.yield(.fileChooser(request))
    }

    // MARK: Answering

    func handle(_ event: Event) async {
        switch event {
        case .fileChooser(let request): await answer(request)
        case .close(let call): await close(call)
        }
    }

    func answer(_ request: FileChooserCall) async {
        defer {
            requests.end(request.handle)
            if let registration = request.registration { bus.unexport(registration) }
        }
        guard !request.progress.isClosed else {
            request.respond(.cancelled)
            return
        }
        guard request.method == "OpenFile" else {
            await forward(request, because: "\(request.method) is not a photo request")
            return
        }
        let options = OpenFileOptions(request.options)
        switch PhotoRequest(options) {
        case .forward(let reason):
            await forward(request, because: reason)
        case .pick(let limit, let accepted):
            let (response, uris) = await pick(request, limit: limit, accepted: accepted, progress: request.progress)
            request.respond(response, uris: uris, currentFilter: response == .success ? options.currentFilterValue : nil)
        }
    }

    /// Passes the call to the fallback backend with its parameters as they came, and its answer
    /// (or error) back as it came.
    func forward(_ request: FileChooserCall, because reason: String) async {
        guard let fallback = configuration.fallback else {
            logger.warning("answered 2: no --fallback backend for a request that is not a photo request",
                           metadata: ["method": "\(request.method)", "app": "\(request.appID)", "why": "\(reason)"])
            request.respond(.other)
            return
        }
        logger.info("forwarded to the desktop's own backend", metadata: [
            "method": "\(request.method)", "app": "\(request.appID)", "fallback": "\(fallback)", "why": "\(reason)"])
        requests.begin(request.handle, .forwarded)
        let answer: Result<DBusValue, DBusError>
        do {
            answer = .success(try await bus.call(destination: PortalInterfaces.busName(ofBackend: fallback), path: PortalInterfaces.objectPath,
                                                 interface: PortalInterfaces.fileChooser, method: request.method,
                                                 parameters: request.call.parameters))
        } catch {
            answer = .failure(error)
        }
        switch answer {
        case .success(let reply):
            request.call.reply(reply)
        case .failure(let error):
            logger.warning("the fallback backend failed", metadata: ["fallback": "\(fallback)", "error": "\(error)"])
            request.call.fail(error)
        }
    }

    /// `Close` on a request's handle: a pick is withdrawn from the owner's sheet and its request
    /// answered 1; a forwarded request's Close goes to the fallback backend.
    func close(_ call: DBusMethodCall) async {
        switch requests.kind(of: call.path) {
        case .forwarded:
            guard let fallback = configuration.fallback else { return call.reply(.unit) }
            do {
                call.reply(try await bus.call(destination: PortalInterfaces.busName(ofBackend: fallback), path: call.path,
                                              interface: PortalInterfaces.request, method: "Close", parameters: nil))
            } catch {
                call.fail(error)
            }
        case .answering(let progress):
            if let pick = progress.close() { await withdraw(pick, app: progress.app) }
            logger.info("the app closed its request", metadata: ["handle": "\(call.path)"])
            call.reply(.unit)
        case nil:
            call.reply(.unit)
        }
    }

    // MARK: Picks

    /// Files the pick, waits for the owner, writes what they chose into the delivery folder; the
    /// response and the files' URIs. Every way it can fail is a log line and response 2.
    func pick(_ request: FileChooserCall, limit: Int, accepted: AcceptedTypes, progress: RequestProgress) async -> (PortalResponse, [String]?) {
        let app: DesktopAppID
        do {
            app = try DesktopAppID(validating: request.appID)
        } catch {
            logger.warning("answered 2: the frontend sent an app id that is not one", metadata: ["error": "\(error.message)"])
            return (.other, nil)
        }
        let name = configuration.names.name(of: app) ?? (app.rawValue.isEmpty ? "An app" : app.rawValue)
        do {
            let picker = try await links.picker()
            // A desktop app cannot say whether it wants the place a photo was taken: the sheet asks
            // the owner for it (precise at most, none unless the owner chooses more).
            let filed = PortalPickRequest(app: app.rawValue, appName: name,
                                          configuration: PickerConfiguration(selectionLimit: limit, filter: accepted.pickerFilter,
                                                                             location: .precise))
            // The owner's pages learn the app's name meanwhile; a pick does not wait for it.
            async let announced: Void = announce(app, name: name)
            let answer = try await waitForOwner(picker.send(.portalPick, filed, timeout: Self.ownerWait), on: picker, app: app,
                                                request: request, progress: progress)
            await announced
            try Task.checkCancellation()
            guard let answer, !answer.results.isEmpty, !progress.isClosed else {
                logger.info("answered 1: the pick was cancelled", metadata: ["app": "\(app)", "handle": "\(request.handle)"])
                return (.cancelled, nil)
            }
            let added = ContinuousClock.now
            let uris = try await deliver(answer, of: app, accepted: accepted, from: picker, progress: progress)
            guard let uris else { return (.cancelled, nil) }
            logger.info("answered 0: the pick was delivered", metadata: [
                "app": "\(app)", "pick": "\(answer.pick)", "files": "\(uris.count)",
                "deliveredIn": "\(ContinuousClock.now - added)", "since": "\(ContinuousClock.now - request.received)"])
            return (.success, uris)
        } catch is CancellationError {
            // Stopping: the pick leaves the owner's sheet without waiting for an answer.
            if let pick = progress.close(), let picker = try? await links.picker() {
                picker.post(.portalCancel, PortalCancelRequest(app: app.rawValue, pick: pick))
            }
            logger.warning("answered 2: lightbox-portal is stopping", metadata: ["app": "\(app)"])
            return (.other, nil)
        } catch {
            logger.error("answered 2: the pick failed", metadata: ["app": "\(app)", "error": "\(error)"])
            return (.other, nil)
        }
    }

    /// How long a pick may wait for its next reply; the picker ends a pick nobody answers first.
    static let ownerWait: Duration = .seconds(24 * 3600)

    /// The pick's answer (nil when its request ended without one), following its events: the pick
    /// is withdrawn if the app closed the request before the picker filed it. Gives up with an
    /// error when the connection to the picker is lost (a restarted picker has forgotten the pick).
    func waitForOwner(_ replies: AsyncThrowingStream<IncomingReply, Error>, on picker: DealerConnection, app: DesktopAppID,
                      request: FileChooserCall, progress: RequestProgress) async throws -> PickResponse? {
        try await Self.untilDisconnected(picker) { [self] in
            for try await reply in replies {
                switch reply.status {
                case .event:
                    guard let started = try? reply.body(PickStarted.self) else { continue }
                    logger.info("the pick is on the owner's sheet", metadata: [
                        "app": "\(app)", "pick": "\(started.pick)", "since": "\(ContinuousClock.now - request.received)"])
                    if progress.started(started.pick) { await withdraw(started.pick, app: app.rawValue) }
                case .ok:
                    return try reply.body(PickResponse.self)
                default:
                    continue
                }
            }
            return nil
        }
    }

    /// Writes each chosen item into a new folder of the pick, as the first representation the app
    /// accepts; the files' URIs, or nil when the app closed the request meanwhile (the folder is
    /// removed then, and on any failure).
    func deliver(_ answer: PickResponse, of app: DesktopAppID, accepted: AcceptedTypes, from picker: DealerConnection,
                 progress: RequestProgress) async throws -> [String]? {
        let folder = try configuration.deliveries.makeFolder(for: app, pick: answer.pick)
        do {
            var uris: [String] = []
            for result in answer.results {
                guard !progress.isClosed else {
                    configuration.deliveries.remove(pickFolder: folder)
                    return nil
                }
                let provider = result.itemProvider
                guard let type = accepted.representation(among: provider.registeredTypeIdentifiers) else {
                    logger.warning("an item has no representation the app accepts; it is left out", metadata: [
                        "app": "\(app)", "registered": "\(provider.registeredTypeIdentifiers.map(\.identifier))"])
                    continue
                }
                let (url, file) = try configuration.deliveries.createFile(suggestedName: provider.suggestedName, type: type, in: folder)
                defer { try? file.close() }
                let load = PortalLoadRequest(app: app.rawValue, token: provider.token, type: type, credit: Self.credit, chunkSize: Self.chunkSize)
                _ = try await CreditStream.load(.portalLoad, load, credit: Self.credit, on: picker, progress: { _ in }) { data in
                    try file.write(contentsOf: data)
                }
                uris.append(url.absoluteString)
            }
            guard !uris.isEmpty else {
                throw PortalError(.delivery, "None of the chosen items has a representation the app accepts.")
            }
            return uris
        } catch {
            configuration.deliveries.remove(pickFolder: folder)
            throw error
        }
    }

    /// Chunks in flight and their size for a delivery: large, since the bytes go straight to a file.
    static let credit = 8
    static let chunkSize = 1 << 20

    /// Takes a pick off the owner's sheet; its request then ends with no results.
    func withdraw(_ pick: String, app: String) async {
        do {
            _ = try await links.picker().request(.portalCancel, PortalCancelRequest(app: app, pick: pick), as: Empty.self, timeout: .seconds(5))
            logger.info("the pick was withdrawn from the owner's sheet", metadata: ["pick": "\(pick)"])
        } catch {
            // Answered or timed out meanwhile: there is nothing left to withdraw.
            logger.notice("the pick could not be withdrawn", metadata: ["pick": "\(pick)", "error": "\(error)"])
        }
    }

    func announce(_ app: DesktopAppID, name: String) async {
        do {
            _ = try await links.auth().request(.portalAnnounce, PortalAppAnnouncement(app: app.rawValue, name: name), as: Empty.self,
                                               timeout: .seconds(5))
        } catch {
            logger.warning("lightbox-auth did not take the app's name; its pages show the app id", metadata: ["app": "\(app)", "error": "\(error)"])
        }
    }

    /// Runs `body` until it returns, or throws once `connection` has lost its peer.
    static func untilDisconnected<T: Sendable>(_ connection: DealerConnection, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let before = connection.disconnections
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                while connection.disconnections == before { try await Task.sleep(for: .seconds(1)) }
                throw PortalError(.servicesUnavailable, "The connection to lightbox-picker was lost; the pick is gone with it.")
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            throw CancellationError()
        }
    }
}
