import Foundation
import HTTPTypes
import Hummingbird
import LightboxClient

/// The request context of the owner's surface: the session, once the guard has checked it.
public struct SurfaceContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    var session: SessionStore.Session?

    public init(source: Source) {
        coreContext = .init(source: source)
    }
}

/// Only the owner gets in. Every request must name this surface as its Host (DNS rebinding), carry
/// a live session (from a one-time login secret) and, when it changes anything, the session's CSRF
/// token; every response carries a strict Content-Security-Policy, refuses framing and sets no CORS
/// headers, so no other origin can read or drive the surface.
struct SurfaceGuard: RouterMiddleware {
    typealias Context = SurfaceContext

    static let sessionCookie = "lightbox_session"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; media-src 'self'; connect-src 'self'; "
        + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    /// Paths open without a session: logging in, and the page's own static files.
    static func isOpen(_ path: String) -> Bool { path == "/login" || path.hasPrefix("/static/") }

    let allowedHosts: Set<String>
    let sessions: SessionStore

    init(port: Int, sessions: SessionStore) {
        allowedHosts = ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
        self.sessions = sessions
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await guarded(request, context: context, next: next)
        Self.secure(&response.headers)
        return response
    }

    private func guarded(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let host = (request.head.authority ?? "").lowercased()
        let strings = SurfaceRoutes.strings(request)
        guard allowedHosts.contains(host) else {
            return Pages.refusal(.misdirectedRequest, title: "Wrong address",
                                 message: "This surface answers only as 127.0.0.1 or localhost, not as “{host}”. Open the address the surface printed.",
                                 values: ["host": host], strings: strings)
        }
        if Self.isOpen(request.uri.path) { return try await next(request, context) }
        guard let session = await sessions.session(request.cookies[Self.sessionCookie]?.value) else {
            return Pages.refusal(.unauthorized, title: "Log in first",
                                 message: "Open the login address the surface printed when it started (it is also in the data folder, as {file}), or make a new one with {command}. Each address works once.",
                                 code: ["command": "lightbox user login", "file": "surface/login-url"], strings: strings)
        }
        if request.method != .get && request.method != .head {
            guard let token = request.headers[Self.csrfHeader], constantTimeEquals(token, session.csrf) else {
                return Pages.refusal(.forbidden, title: "Refused",
                                     message: "This change did not come from the surface's own page (no valid CSRF token). Reload the page and try again.",
                                     strings: strings)
            }
        }
        var context = context
        context.session = session
        do {
            return try await next(request, context)
        } catch let error as LightboxError {
            // A service's refusal reaches the page as its code and sentence.
            let status: HTTPResponse.Status = switch error.code {
            case .notFound, .tokenUnknown: .notFound
            case .badRequest: .badRequest
            case .notAuthorized: .forbidden
            case .timeout: .gatewayTimeout
            case .busy: .serviceUnavailable
            default: .conflict
            }
            return Response(status: status, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: Surface.json(error))))
        }
    }

    static func secure(_ headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("Cross-Origin-Opener-Policy")!] = "same-origin"
        headers[HTTPField.Name("Cross-Origin-Resource-Policy")!] = "same-origin"
        if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
    }
}
