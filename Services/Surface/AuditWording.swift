import LightboxProtocol

/// The audit trail in words the owner reads on the Activity page ("Received 2 items you picked",
/// "Checked its photo access: limited"), in one place, in the page's language (`SurfaceStrings`).
/// The raw codes stay on the page's "raw trail".
enum AuditWording {
    /// What one line of the trail says: what the app (or the owner) did, and how it ended.
    static func sentence(_ entry: AuditEntry, strings: SurfaceStrings = .english) -> String {
        let operation = AuditOperation(rawValue: entry.operation)
        let action = self.action(operation, count: entry.assetCount, strings: strings)
        // "Fetched nothing from your library" needs no "delivered" after it.
        let nothing = entry.assetCount == 0 && entry.outcome == AuditOutcome.delivered.rawValue
        guard !nothing, let result = outcome(AuditOutcome(rawValue: entry.outcome), strings: strings) else { return action }
        return strings("{action}: {result}", ["action": action, "result": result])
    }

    static func action(_ operation: AuditOperation, count: Int, strings: SurfaceStrings = .english) -> String {
        let items = strings.count(count, one: "1 item", many: "{count} items")
        let t = { (text: String) in strings(text, ["items": items]) }
        switch (operation.family, operation.detail) {
        case ("pick", "opened"): return t("Asked you to pick photos")
        case ("pick", "answered"): return count == 0 ? t("Pick answered") : t("Received {items} you picked")
        case ("pick", _): return t("Pick")
        case ("settings", _): return t("You changed its access")
        case ("status", "readWrite"): return t("Checked its photo access")
        case ("status", "addOnly"): return t("Checked its add-only access")
        case ("status", _): return t("Checked its access")
        case ("request", "addOnly"): return t("Asked to add to your photos")
        case ("request", _): return t("Asked for access to your photos")
        case ("prompt", "addOnly"): return t("You answered its request to add photos")
        case ("prompt", _): return t("You answered its request for access")
        case ("expand", _): return t("Offered “Select more photos”")
        case ("ended", "addOnly"): return t("Its add-only access ended, as you set")
        case ("ended", _): return t("Its photo access ended, as you set")
        case ("reset", "unused"): return t("Its access was reset: it went unused")
        case ("create", _): return t("Added {items} to your library")
        case ("delete", "confirm"): return t("You answered its request to delete {items}")
        case ("delete", _): return t("Deleted {items}")
        case ("read", _): return t("Asked to read your library")
        case ("add", _): return t("Asked to add to your library")
        case ("listAlbums", _): return t("Listed your albums")
        case ("createAlbum", _): return t("Created an album")
        case ("location", "prompt"): return t("You answered where it may learn photos were taken")
        case ("location", _): return t("You changed where it learns photos were taken")
        case ("edit", _): return t("Edited {items}")
        case ("revert", "owner"): return t("You returned {items} it edited to the original")
        case ("revert", _): return t("Returned {items} to the original")
        case ("describe", _): return t("Looked up {items}")
        case ("load", _): return t("Loaded {items}")
        case ("open", _): return t("Opened the file of {items}")
        case ("fetch", _): return count == 0 ? t("Fetched nothing from your library") : t("Fetched {items} from your library")
        case ("query", _): return t("Searched your library ({items})")
        case ("image", _): return t("Asked for an image of {items}")
        case ("video", _): return t("Asked for a video of {items}")
        case ("properties", _): return t("Read the details (metadata) of {items}")
        case ("changes", _): return t("Watched for changes to your library")
        case ("album", "add"): return t("Added {items} to an album")
        case ("album", "remove"): return t("Removed {items} from an album")
        case ("album", _): return t("Looked into an album ({items})")
        default: return operation.family.isEmpty ? t("Something") : strings("Did “{operation}”", ["operation": operation.rawValue])
        }
    }

    /// How it ended, in words; nil when there is nothing to add ("ok").
    static func outcome(_ outcome: AuditOutcome, strings: SurfaceStrings = .english) -> String? {
        let raw = outcome.rawValue
        if let status = AuthorizationStatus(rawValue: raw) { return words(status, strings: strings) }
        let (head, tail) = split(raw)
        switch head {
        case "ok": return nil
        case "delivered": return strings("delivered")
        case "waiting": return nil // the pick's answer is its own line
        case "timeout": return strings("no answer in time")
        case "cancelled": return strings("cancelled")
        case "completed": return strings("completed")
        case "abandoned": return strings("stopped before the end")
        case "failed": return strings("failed")
        case "expired": return strings("not collected in time")
        case "requested": return strings("requested")
        case "inCloud": return strings("the item is in the cloud")
        case "created": return strings("created")
        case "changed": return strings("changed")
        case "deleted": return strings("deleted")
        case "edited": return strings("edited version saved")
        case "reverted": return strings("back to the original")
        case "declined": return strings("you declined")
        case "approximate": return strings("approximate location")
        case "precise": return strings("precise location")
        case "none": return strings("no location")
        case "notLimited": return strings("not needed: its access is not limited")
        case "missingUsageDescription": return strings("refused: the app did not say why it needs access")
        case "refused": return tail.map { strings("refused ({reason})", ["reason": reason($0, strings: strings)]) } ?? strings("refused")
        case "allowed":
            switch tail {
            case "all": return strings("allowed, whole library")
            case "selection": return strings("allowed, only the photos you chose")
            case "none": return strings("allowed, but it may see nothing")
            default: return strings("allowed")
            }
        case "stored": return tail.flatMap(AuthorizationStatus.init(rawValue:)).map { strings("already {status}", ["status": words($0, strings: strings).lowercased()]) }
        case "selection": return tail.map { strings("you chose {items}", ["items": strings.count(Int($0) ?? 0, one: "1 item", many: "{count} items")]) }
        default:
            if raw.hasPrefix("readWrite:") { return settings(raw, strings: strings) }
            if raw.hasPrefix("delivered to ") { return strings("delivered") }
            return raw
        }
    }

    /// An access status as the Privacy page says it.
    static func words(_ status: AuthorizationStatus, selectionCount: Int? = nil, strings: SurfaceStrings = .english) -> String {
        switch status {
        case .notDetermined: strings("Not asked yet")
        case .restricted: strings("Restricted")
        case .denied: strings("None")
        case .authorized: strings("Full access")
        case .limited: selectionCount.map { strings.count($0, one: "Limited to 1 photo", many: "Limited to {count} photos") } ?? strings("Limited")
        }
    }

    /// `readWrite:limited addOnly:notDetermined` → "Photos: Limited · Add only: Not asked yet".
    static func settings(_ raw: String, strings: SurfaceStrings = .english) -> String {
        let parts = raw.split(separator: " ").map { split(String($0)) }
        let named = parts.compactMap { key, value -> String? in
            guard let status = value.flatMap(AuthorizationStatus.init(rawValue:)) else { return nil }
            return strings(key == "addOnly" ? "Add only: {status}" : "Photos: {status}", ["status": words(status, strings: strings)])
        }
        return named.joined(separator: " · ")
    }

    /// A refusal's reason: an error code or a status, in words where we have them.
    static func reason(_ raw: String, strings: SurfaceStrings = .english) -> String {
        let code = split(raw).0.components(separatedBy: " ").first ?? raw
        switch code {
        case "tokenRevoked": return strings("you revoked it")
        case "tokenExpired": return strings("its access expired")
        case "tokenUnknown": return strings("unknown item")
        case "notAuthorized": return strings("no permission")
        case "notFound": return strings("not found")
        case "wrongApp": return strings("it belongs to another app")
        case "busy": return strings("too busy")
        case "denied": return strings("its access is None")
        case "notDetermined": return strings("it has not asked for access yet")
        case "restricted": return strings("its access is restricted")
        case "limited": return strings("outside the photos you chose")
        default: return code
        }
    }

    private static func split(_ text: String) -> (String, String?) {
        guard let colon = text.firstIndex(of: ":") else { return (text, nil) }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}
