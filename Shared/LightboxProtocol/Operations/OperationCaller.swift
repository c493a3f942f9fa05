/// Who may call an operation, as its declaration says and PROTOCOL.md's sections group them.
public enum CallerKind: String, Sendable, CaseIterable {
    /// A registered app's key.
    case app
    /// The owner's surfaces (CLI, settings, picker UI).
    case owner
    /// Lightbox's own services.
    case service
    /// lightbox-portal, acting for the desktop apps it names.
    case portal
    /// Anyone with a registered key (ping, whoami).
    case any
}

/// The caller a handler is handed, made from the CURVE identity of the connection (never from a
/// message field). An operation's caller type is its admission rule: a principal that does not
/// make one is refused before the body is decoded.
public protocol OperationCaller: Sendable {
    static var kind: CallerKind { get }
    init?(_ principal: Principal)
}

extension OperationCaller {
    /// The refusal for a principal this caller type does not admit.
    public static func refusal(of operation: OperationName) -> LightboxError {
        switch kind {
        case .app: LightboxError(.notAuthorized, "\(operation) is for apps; connect with a registered app key.")
        case .owner: LightboxError(.notAuthorized, "\(operation) is for the owner's surfaces only.")
        case .service: LightboxError(.notAuthorized, "\(operation) is for Lightbox services only.")
        case .portal: LightboxError(.notAuthorized, "\(operation) is for lightbox-portal only.")
        case .any: LightboxError(.notAuthorized, "\(operation) needs a registered key.")
        }
    }
}

/// A registered app, by the id its key was registered under.
public struct AppID: OperationCaller, Hashable, CustomStringConvertible {
    public static let kind = CallerKind.app
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }

    public init?(_ principal: Principal) {
        guard case .app(let id) = principal else { return nil }
        rawValue = id
    }

    public var description: String { rawValue }
}

/// The owner's surfaces. There is one owner; the value says only that the caller is it.
public struct Owner: OperationCaller, Hashable {
    public static let kind = CallerKind.owner

    public init?(_ principal: Principal) {
        guard principal == .owner else { return nil }
    }
}

/// One of Lightbox's own services, by name (`picker`).
public struct ServiceID: OperationCaller, Hashable {
    public static let kind = CallerKind.service
    public let name: String

    public init?(_ principal: Principal) {
        guard case .service(let name) = principal else { return nil }
        self.name = name
    }
}

/// lightbox-portal. Its operations name the desktop app they act for (`DesktopAppID`); the
/// services take that name from this caller only.
public struct Portal: OperationCaller, Hashable {
    public static let kind = CallerKind.portal

    public init() {}

    public init?(_ principal: Principal) {
        guard principal == .portal else { return nil }
    }
}

/// Any registered key: the principal as it is.
extension Principal: OperationCaller {
    public static let kind = CallerKind.any

    public init?(_ principal: Principal) { self = principal }
}
