// The location an app receives with its library access.
extension AuditOperation {
    /// The owner gave (or changed) an app's location by answering a prompt that asked for it.
    public static let locationPrompt = AuditOperation("location", "prompt")
    /// The owner changed an app's location in the settings (`owner.access.set`).
    public static let locationSettings = AuditOperation("location", "settings")
}

extension AuditOutcome {
    /// The location an app has now: `none`, `approximate` or `precise`.
    public static func location(_ location: LocationAccess) -> AuditOutcome { AuditOutcome(rawValue: location.rawValue) }
}
