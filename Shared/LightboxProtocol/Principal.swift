/// Who is on the other end of a connection, as the service learned it from the CURVE key.
///
/// As text (`userId`) it reads `app:<id>`, `owner` or `service:<name>`.
public enum Principal: Hashable, Sendable, CustomStringConvertible {
    case app(String)
    case owner
    case service(String)

    public init?(userId: String) {
        if userId == "owner" {
            self = .owner
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
        }
    }

    public var description: String { userId }

    public var appID: String? {
        if case .app(let id) = self { return id }
        return nil
    }
}
