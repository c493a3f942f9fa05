import Foundation
import HTTPTypes
import Hummingbird
import LightboxClient
import Logging

/// Every route of the surface: pages, the event stream, thumbnails, and the small JSON API the
/// page's scripts call (each POST checked for its CSRF token by `SurfaceGuard`).
struct SurfaceRoutes: Sendable {
    let owner: OwnerSurface
    let settings: OwnerSettings
    let feed: OwnerFeed
    let sessions: SessionStore
    let login: SurfaceLogin
    let logger: Logger

    /// The largest JSON body a page sends (a selection of a few thousand identifiers).
    static let maximumBody = 4 << 20

    func register(on router: Router<SurfaceContext>) {
        router.get("/login") { request, _ in try await logIn(request) }
        router.get("/static/:file") { _, context in try staticFile(context.parameters.get("file") ?? "") }

        router.get("/") { request, context in
            let strings = Self.strings(request)
            return Pages.page(.picks, title: strings("Requests"), csrf: context.session?.csrf ?? "",
                              body: Pages.requests(await feed.current, strings: strings), strings: strings)
        }
        router.get("/library") { request, context in
            let strings = Self.strings(request)
            return Pages.page(.library, title: strings("Library"), csrf: context.session?.csrf ?? "", body: Pages.library(strings: strings), strings: strings)
        }
        router.get("/asset") { request, context in
            let details = try await owner.details(of: try required(request, "id"))
            let strings = Self.strings(request)
            return Pages.page(.library, title: details.summary.fileName, csrf: context.session?.csrf ?? "",
                              body: Pages.asset(details, strings: strings), strings: strings)
        }
        router.get("/privacy") { request, context in
            let strings = Self.strings(request)
            let apps = try await settings.apps()
            // Album grants are named from the picker's albums (one the library no longer has is not
            // shown); without the picker the page still shows everything else.
            let albums = apps.contains { $0.albums != nil } ? (try? await owner.outline().albums) ?? [] : []
            return Pages.page(.privacy, title: strings("Privacy"), csrf: context.session?.csrf ?? "",
                              body: Pages.privacy(apps, report: try await PrivacyReport.load(apps, settings: settings), albums: albums,
                                                  strings: strings),
                              strings: strings)
        }
        router.get("/activity") { request, context in try await activity(request, context) }

        router.get("/events") { _, _ in await events() }
        router.get("/api/state") { _, _ in json(await feed.current) }
        // The page checks before it shows a pick's sheet: a pick that has ended gets none.
        router.get("/api/picks/pending") { request, _ in
            json(PendingAnswer(pending: try await feed.isPending(try required(request, "pick"), owner: owner)))
        }
        router.get("/api/assets") { request, _ in try await assetPage(request) }
        router.get("/api/outline") { _, _ in json(try await owner.outline()) }
        router.get("/thumb") { request, _ in try await thumbnail(request) }
        router.get("/media") { request, _ in try await media(request) }
        router.get("/api/apps/detail") { request, _ in json(try await settings.accessDetail(of: try required(request, "app"))) }

        router.post("/api/picks/choose") { request, _ in
            let body = try await decode(ChooseBody.self, request)
            let delivered = try await owner.choose(body.assets, for: body.pick, stripMetadata: body.removeLocation == true ? .location : nil,
                                                   location: body.location)
            await feed.forget(pick: body.pick)
            return json(ChooseResponse(delivered: delivered))
        }
        router.post("/api/picks/cancel") { request, _ in
            let pick = try await decode(CancelPickRequest.self, request).pick
            try await owner.cancel(pick)
            await feed.forget(pick: pick)
            return json(Empty())
        }
        router.post("/api/prompts/answer") { request, _ in
            let body = try await decode(AnswerPromptRequest.self, request)
            try await settings.answer(body.prompt, body.answer, selection: body.selection, term: body.term, albums: body.albums,
                                      location: body.location)
            return json(Empty())
        }
        router.post("/api/apps/access") { request, _ in json(try await settings.setAccess(try await decode(SetAccessRequest.self, request))) }
        router.post("/api/apps/revoke") { request, _ in
            json(RevokeResponse(revoked: try await owner.revokeAll(of: try await decode(AppBody.self, request).app)))
        }
        router.post("/api/assets/offload") { request, _ in
            try await owner.offload(try await decode(AssetRequest.self, request).asset)
            return json(Empty())
        }
        router.post("/api/assets/restore") { request, _ in
            try await owner.restore(try await decode(AssetRequest.self, request).asset)
            return json(Empty())
        }
        router.post("/api/assets/revert") { request, _ in
            json(RevertResponse(reverted: try await owner.revert(try await decode(AssetRequest.self, request).asset)))
        }
        router.post("/api/import") { request, _ in try await startImport(try await decode(ImportRequest.self, request).path) }
    }

    struct ChooseBody: Codable, Sendable {
        var pick: String
        var assets: [String]
        var removeLocation: Bool?
        /// The sheet's answer to the pick's location request.
        var location: LocationAccess?
    }

    struct PendingAnswer: Codable, Sendable {
        var pending: Bool
    }

    struct AppBody: Codable, Sendable {
        var app: String
    }

    // MARK: Handlers

    func logIn(_ request: Request) async throws -> Response {
        guard let secret = request.uri.queryParameters.get("secret"), login.redeem(secret) else {
            return Pages.refusal(.unauthorized, title: "This login address does not work",
                                 message: "Each login address works once. Make a new one with {command} and open it.",
                                 code: ["command": "lightbox user login"], strings: Self.strings(request))
        }
        let session = await sessions.create()
        var response = Response(status: .seeOther, headers: [.location: "/"])
        response.setCookie(Cookie(name: SurfaceGuard.sessionCookie, value: session.id, maxAge: Int(SessionStore.lifetime), path: "/",
                                  httpOnly: true, sameSite: .strict))
        logger.info("the owner logged in to the surface")
        return response
    }

    func events() async -> Response {
        let (id, stream) = await feed.subscribe()
        let feed = self.feed
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: ResponseBody { writer in
                defer { Task { await feed.unsubscribe(id) } }
                for await message in stream { try await writer.write(ByteBuffer(string: message)) }
                try await writer.finish(nil)
            })
    }

    func assetPage(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        let filter = try query.get("filter").flatMap { $0.isEmpty ? nil : try PickerFilter(parsing: $0) }
        func text(_ name: String) -> String? { query.get(name).flatMap { $0.isEmpty ? nil : $0 } }
        var before: Date?
        if let text = text("before") {
            let fractional = ISO8601DateFormatter()
            fractional.formatOptions.insert(.withFractionalSeconds)
            guard let date = ISO8601DateFormatter().date(from: text) ?? fractional.date(from: text) else {
                throw HTTPError(.badRequest, message: "before must be a moment such as 2024-01-01T00:00:00Z.")
            }
            before = date
        }
        let pick = text("pick")
        let page = try await owner.assetPage(ListAssetsRequest(
            pick: pick, filter: filter, limit: Int(query.get("limit") ?? "") ?? 60, after: text("after"),
            search: text("search"), album: text("album"), before: before, timeZone: text("timeZone")))
        let shown = pick == nil ? nil : await feed.current.picks.first { $0.pick == pick }
        return json(UnavailableWording.page(page, of: shown, strings: Self.strings(request)))
    }

    func thumbnail(_ request: Request) async throws -> Response {
        let asset = try required(request, "asset")
        let side = min(max(Int(request.uri.queryParameters.get("side") ?? "") ?? 256, 16), 1024)
        let (info, jpeg) = try await owner.thumbnail(of: asset, side: side)
        let etag = "\"\(info.etag)\""
        let caching: HTTPFields = [.eTag: etag, .cacheControl: "private, max-age=86400"]
        if request.headers[.ifNoneMatch] == etag { return Response(status: .notModified, headers: caching) }
        var headers = caching
        headers[.contentType] = "image/jpeg"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: jpeg)))
    }

    /// A preview's movie or animated original, streamed with range requests (a video element seeks
    /// with them), a bounded chunk at a time from the picker.
    func media(_ request: Request) async throws -> Response {
        let asset = try required(request, "asset")
        guard let part = MediaRangePart(rawValue: request.uri.queryParameters.get("part") ?? "") else {
            throw HTTPError(.badRequest, message: "The address needs ?part=movie or ?part=original.")
        }
        let owner = self.owner
        let first = try await owner.mediaRange(of: asset, part, offset: 0, length: 0).info
        let total = first.totalBytes
        var headers: HTTPFields = [.acceptRanges: "bytes", .cacheControl: "private, max-age=3600",
                                   .contentType: first.type.preferredMIMEType ?? "application/octet-stream"]
        let range: ByteRange, status: HTTPResponse.Status
        switch ByteRange.resolve(request.headers[.range], total: total) {
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(total)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        case .whole:
            (range, status) = (ByteRange(start: 0, end: total - 1), .ok)
        case .range(let asked):
            (range, status) = (asked, .partialContent)
            headers[.contentRange] = "bytes \(asked.start)-\(asked.end)/\(total)"
        }
        headers[.contentLength] = String(max(range.count, 0))
        return Response(status: status, headers: headers, body: ResponseBody { writer in
            var offset = range.start
            while offset <= range.end {
                let length = Int(min(Int64(MediaRangeRequest.maximumLength), range.end - offset + 1))
                let bytes = try await owner.mediaRange(of: asset, part, offset: offset, length: length).bytes
                guard !bytes.isEmpty else { break }
                try await writer.write(ByteBuffer(bytes: bytes))
                offset += Int64(bytes.count)
            }
            try await writer.finish(nil)
        })
    }

    func activity(_ request: Request, _ context: SurfaceContext) async throws -> Response {
        let query = request.uri.queryParameters
        let app = query.get("app").flatMap { $0.isEmpty ? nil : $0 }
        let day = query.get("day").flatMap { $0.isEmpty ? nil : $0 }
        var audit = AuditRequest(app: app, before: query.get("before").flatMap { Int64($0) }, limit: 100)
        if let day {
            let parser = DateFormatter()
            parser.locale = Locale(identifier: "en_US_POSIX")
            parser.timeZone = TimeZone(identifier: "UTC")
            parser.dateFormat = "yyyy-MM-dd"
            guard let start = parser.date(from: day) else {
                throw HTTPError(.badRequest, message: "The day must look like 2026-11-23.")
            }
            audit.since = start
            audit.until = start.addingTimeInterval(86_400)
        }
        let page = try await settings.audit(audit)
        let strings = Self.strings(request)
        return Pages.page(.activity, title: strings("Activity"), csrf: context.session?.csrf ?? "",
                          body: Pages.activity(page.entries, apps: try await settings.apps(), app: app, day: day, next: page.next,
                                               showsRaw: query.get("raw") == "1", strings: strings),
                          strings: strings)
    }

    /// Imports in the background; the pages hear its progress as `import` events.
    func startImport(_ path: String) async throws -> Response {
        let owner = self.owner, feed = self.feed, logger = self.logger
        Task {
            do {
                let summary = try await owner.importLibrary(at: path) { step in
                    Task { await feed.broadcast(event: "import", json: Surface.json(step)) }
                }
                await feed.broadcast(event: "imported", json: Surface.json(summary))
            } catch {
                logger.warning("an import from the surface failed", metadata: ["error": "\(error)"])
                await feed.broadcast(event: "importFailed", json: Surface.json(Self.errorBody(error)))
            }
        }
        return json(Empty(), status: .accepted)
    }

    // MARK: Helpers

    /// The page's words, in the language the browser asks for.
    static func strings(_ request: Request) -> SurfaceStrings {
        SurfaceStrings(language: SurfaceLanguage(acceptLanguage: request.headers[.acceptLanguage]))
    }

    func staticFile(_ name: String) throws -> Response {
        let types = ["css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml"]
        let fileExtension = (name as NSString).pathExtension
        // Only plain names of our own files: no separators, no dots but the extension's.
        guard name.range(of: #"^[a-z][a-z0-9-]*\.(css|js|svg)$"#, options: .regularExpression) != nil, let type = types[fileExtension],
              let folder = Bundle.module.url(forResource: "Web", withExtension: nil),
              let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else {
            throw HTTPError(.notFound)
        }
        return Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    func required(_ request: Request, _ name: String) throws -> String {
        guard let value = request.uri.queryParameters.get(name), !value.isEmpty else {
            throw HTTPError(.badRequest, message: "The address needs ?\(name)=….")
        }
        return value
    }

    func decode<T: Decodable>(_ type: T.Type, _ request: Request) async throws -> T {
        var request = request
        let buffer = try await request.collectBody(upTo: Self.maximumBody)
        do {
            return try WireCoding.decode(T.self, from: Data(buffer: buffer))
        } catch {
            throw HTTPError(.badRequest, message: "The request body is not what this page sends.")
        }
    }

    func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: Surface.json(value))))
    }

    static func errorBody(_ error: any Error) -> ErrorBody {
        (error as? LightboxError) ?? LightboxError(.internal, "\(error)")
    }
}
