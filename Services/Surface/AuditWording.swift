import LightboxProtocol

/// The audit trail in words the owner reads on the Activity page ("Received 2 items you picked",
/// "Checked its photo access: limited"), in one place. The raw codes stay on the page's "raw trail".
enum AuditWording {
    /// What one line of the trail says: what the app (or the owner) did, and how it ended.
    static func sentence(_ entry: AuditEntry) -> String {
        let operation = AuditOperation(rawValue: entry.operation)
        let action = self.action(operation, count: entry.assetCount)
        // "Fetched nothing from your library" needs no "delivered" after it.
        let nothing = entry.assetCount == 0 && entry.outcome == AuditOutcome.delivered.rawValue
        guard !nothing, let result = outcome(AuditOutcome(rawValue: entry.outcome)) else { return action }
        return "\(action): \(result)"
    }

    static func action(_ operation: AuditOperation, count: Int) -> String {
        let items = count == 1 ? "1 item" : "\(count) items"
        switch (operation.family, operation.detail) {
        case ("pick", "opened"): return "Asked you to pick photos"
        case ("pick", "answered"): return count == 0 ? "Pick answered" : "Received \(items) you picked"
        case ("pick", _): return "Pick"
        case ("settings", _): return "You changed its access"
        case ("status", "readWrite"): return "Checked its photo access"
        case ("status", "addOnly"): return "Checked its add-only access"
        case ("status", _): return "Checked its access"
        case ("request", "addOnly"): return "Asked to add to your photos"
        case ("request", _): return "Asked for access to your photos"
        case ("prompt", "addOnly"): return "You answered its request to add photos"
        case ("prompt", _): return "You answered its request for access"
        case ("expand", _): return "Offered “Select more photos”"
        case ("create", _): return "Added \(items) to your library"
        case ("delete", "confirm"): return "You answered its request to delete \(items)"
        case ("delete", _): return "Deleted \(items)"
        case ("read", _): return "Asked to read your library"
        case ("add", _): return "Asked to add to your library"
        case ("listAlbums", _): return "Listed your albums"
        case ("createAlbum", _): return "Created an album"
        case ("describe", _): return "Looked up \(items)"
        case ("load", _): return "Loaded \(items)"
        case ("open", _): return "Opened the file of \(items)"
        case ("fetch", _): return count == 0 ? "Fetched nothing from your library" : "Fetched \(items) from your library"
        case ("query", _): return "Searched your library (\(items))"
        case ("image", _): return "Asked for an image of \(items)"
        case ("video", _): return "Asked for a video of \(items)"
        case ("properties", _): return "Read the details (metadata) of \(items)"
        case ("changes", _): return "Watched for changes to your library"
        case ("album", "add"): return "Added \(items) to an album"
        case ("album", "remove"): return "Removed \(items) from an album"
        case ("album", _): return "Looked into an album (\(items))"
        default: return operation.family.isEmpty ? "Something" : "Did “\(operation.rawValue)”"
        }
    }

    /// How it ended, in words; nil when there is nothing to add ("ok").
    static func outcome(_ outcome: AuditOutcome) -> String? {
        let raw = outcome.rawValue
        if let status = AuthorizationStatus(rawValue: raw) { return words(status) }
        let (head, tail) = split(raw)
        switch head {
        case "ok": return nil
        case "delivered": return "delivered"
        case "waiting": return nil // the pick's answer is its own line
        case "timeout": return "no answer in time"
        case "cancelled": return "cancelled"
        case "completed": return "completed"
        case "abandoned": return "stopped before the end"
        case "failed": return "failed"
        case "expired": return "not collected in time"
        case "requested": return "requested"
        case "inCloud": return "the item is in the cloud"
        case "created": return "created"
        case "changed": return "changed"
        case "deleted": return "deleted"
        case "declined": return "you declined"
        case "notLimited": return "not needed: its access is not limited"
        case "missingUsageDescription": return "refused: the app did not say why it needs access"
        case "refused": return tail.map { "refused (\(reason($0)))" } ?? "refused"
        case "allowed":
            switch tail {
            case "all": return "allowed, whole library"
            case "selection": return "allowed, only the photos you chose"
            case "none": return "allowed, but it may see nothing"
            default: return "allowed"
            }
        case "stored": return tail.flatMap(AuthorizationStatus.init(rawValue:)).map { "already \(words($0).lowercased())" }
        case "selection": return tail.map { "you chose \($0 == "1" ? "1 item" : "\($0) items")" }
        default:
            if raw.hasPrefix("readWrite:") { return settings(raw) }
            if raw.hasPrefix("delivered to ") { return "delivered" }
            return raw
        }
    }

    /// An access status as the Privacy page says it.
    static func words(_ status: AuthorizationStatus, selectionCount: Int? = nil) -> String {
        switch status {
        case .notDetermined: "Not asked yet"
        case .restricted: "Restricted"
        case .denied: "None"
        case .authorized: "Full access"
        case .limited: selectionCount.map { "Limited to \($0) photo\($0 == 1 ? "" : "s")" } ?? "Limited"
        }
    }

    /// `readWrite:limited addOnly:notDetermined` → "Photos: Limited · Add only: Not asked yet".
    static func settings(_ raw: String) -> String {
        let parts = raw.split(separator: " ").map { split(String($0)) }
        let named = parts.compactMap { key, value -> String? in
            guard let status = value.flatMap(AuthorizationStatus.init(rawValue:)) else { return nil }
            return (key == "addOnly" ? "Add only: " : "Photos: ") + words(status)
        }
        return named.joined(separator: " · ")
    }

    /// A refusal's reason: an error code or a status, in words where we have them.
    static func reason(_ raw: String) -> String {
        let code = split(raw).0.components(separatedBy: " ").first ?? raw
        switch code {
        case "tokenRevoked": return "you revoked it"
        case "tokenExpired": return "its access expired"
        case "tokenUnknown": return "unknown item"
        case "notAuthorized": return "no permission"
        case "notFound": return "not found"
        case "wrongApp": return "it belongs to another app"
        case "busy": return "too busy"
        case "denied": return "its access is None"
        case "notDetermined": return "it has not asked for access yet"
        case "restricted": return "its access is restricted"
        case "limited": return "outside the photos you chose"
        default: return code
        }
    }

    private static func split(_ text: String) -> (String, String?) {
        guard let colon = text.firstIndex(of: ":") else { return (text, nil) }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}
