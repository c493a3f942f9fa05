import Foundation

/// What the owner registers for an app: who it is, its key, and why it wants library access.
public struct AppManifest: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    /// The app's CURVE public key, Z85 text (40 characters).
    public var publicKey: String
    /// Shown when the app asks for read-write access (NSPhotoLibraryUsageDescription).
    public var usageReadWrite: String?
    /// Shown when the app asks for add-only access (NSPhotoLibraryAddUsageDescription).
    public var usageAddOnly: String?
    public var preventAutomaticLimitedAccessAlert: Bool

    public init(id: String, name: String, publicKey: String, usageReadWrite: String? = nil,
                usageAddOnly: String? = nil, preventAutomaticLimitedAccessAlert: Bool = false) {
        self.id = id
        self.name = name
        self.publicKey = publicKey
        self.usageReadWrite = usageReadWrite
        self.usageAddOnly = usageAddOnly
        self.preventAutomaticLimitedAccessAlert = preventAutomaticLimitedAccessAlert
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        name = try c.decode(String.self, forKey: .name)
        publicKey = try c.decode(String.self, forKey: .publicKey)
        usageReadWrite = try c.decodeIfPresent(String.self, forKey: .usageReadWrite)
        usageAddOnly = try c.decodeIfPresent(String.self, forKey: .usageAddOnly)
        preventAutomaticLimitedAccessAlert =
            try c.decodeIfPresent(Bool.self, forKey: .preventAutomaticLimitedAccessAlert) ?? false
    }

    /// App ids are short, safe names: they become file names and appear in `User-Id`.
    public static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 64 && id.first != "." && id.allSatisfy {
            $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_")
        }
    }
}

public struct RegisterAppRequest: Codable, Sendable {
    public var manifest: AppManifest
    public init(manifest: AppManifest) { self.manifest = manifest }
}

public struct AppManifestResponse: Codable, Sendable {
    public var manifest: AppManifest
    public init(manifest: AppManifest) { self.manifest = manifest }
}

public struct AppListResponse: Codable, Sendable {
    public var apps: [AppManifest]
    public init(apps: [AppManifest]) { self.apps = apps }
}

/// `auth.identify` (services only): which app owns this CURVE public key.
public struct IdentifyRequest: Codable, Sendable {
    public var publicKey: String
    public init(publicKey: String) { self.publicKey = publicKey }
}

/// `service.ping` and `service.whoami`: which service answered and who it thinks the caller is.
public struct ServiceIdentity: Codable, Sendable, Hashable {
    public var service: String
    public var principal: String
    public init(service: String, principal: String) {
        self.service = service
        self.principal = principal
    }
}
