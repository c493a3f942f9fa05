import LightboxProtocol
import LightboxTransport

extension AuthService {
    /// lightbox-auth's table: each feature contributes its declared operations (`Operations.auth`).
    func makeOperationTable() -> OperationTable {
        var table = OperationTable(serviceName: "lightbox-auth", auditor: audit)
        table.on(Operations.ping) { principal, _, _ in ServiceIdentity(service: "auth", principal: principal.userId) }
        table.on(Operations.whoami) { principal, _, _ in ServiceIdentity(service: "auth", principal: principal.userId) }
        AuthorizationFeature(store: store, registry: registry, prompts: prompts, promptWaits: promptWaits,
                             promptTimeout: configuration.promptTimeout, broadcaster: broadcaster, launches: launches,
                             accessChanges: accessChanges, logger: logger).register(in: &table)
        PromptsFeature(store: store, registry: registry, prompts: prompts, promptWaits: promptWaits, promptTimeout: configuration.promptTimeout,
                       accessChanges: accessChanges, grantTerms: grantTerms, logger: logger).register(in: &table)
        SettingsFeature(store: store, registry: registry, accessChanges: accessChanges, grantTerms: grantTerms).register(in: &table)
        RegistryFeature(registry: registry, logger: logger).register(in: &table)
        DecisionsFeature(store: store, followers: followers).register(in: &table)
        AuditFeature(audit: audit).register(in: &table)
        return table
    }
}
