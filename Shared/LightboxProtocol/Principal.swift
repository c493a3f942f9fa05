/// Who is on the other end of a connection, as the service learned it from the CURVE key.
///
/// As text (`userId`) it reads `app:<id>`, `owner`, `service:<name>` or `portal`.
public enum Principal: Hashable, Sendable, CustomStringConvertible {
    case app(String)
    case owner
    case service(String)
    /// lightbox-portal, the desktop's file chooser backend: it files picks on behalf of desktop
    /// apps it names (`portal:<app id>`), which have no keys of their own.
    case portal

    public init?(userId: String) {
        if userId == "owner" {
            self = .owner
        } else if userId == "portal" {
            self = .portal
        } else if userId.hasPrefix("app:"), userId.count > 4 {
            self = .app(String(userId.dropFirst(4)))
        } else if userId.hasPrefix("service:"), userId.count > 8 {
            self = .service(String(userId.dropFirst(8)))
        } else {
            return nil
        }
    }

    public var userId: String {
        switch self {
        case .app(let id): "app:\(id)"
        case .owner: "owner"
        case .service(let name): "service:\(name)"
        case .portal: "portal"
        }
    }

    public var description: String { userId }

    public var appID: String? {
        if case .app(let id) = self { return id }
        return nil
    }
}
