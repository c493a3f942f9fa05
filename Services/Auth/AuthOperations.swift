import LightboxProtocol
import LightboxTransport

extension AuthService {
    /// Every operation of lightbox-auth and who may call it; the dispatcher checks the principal
    /// before the handler runs.
    public static let operations = OperationTable<AuthService>(serviceName: "lightbox-auth", [
        .ping: .any { try await $0.identifyService($1, $2) },
        .whoami: .any { try await $0.identifyService($1, $2) },
        // Apps
        .authorizationStatus: .app { try await $0.authorizationStatus($1, $2) },
        .requestAuthorization: .app { try await $0.requestAuthorization($1, $2) },
        .presentLimitedLibraryPicker: .app { try await $0.presentLimitedLibraryPicker($1, $2) },
        .watch: .app { try await $0.watch($1, $2) },
        .changes: .app { try await $0.changes($1, $2) },
        // The owner
        .registerApp: .owner { try await $0.registerApp($1, $2) },
        .listApps: .owner { try await $0.listApps($1, $2) },
        .prompts: .owner { try await $0.listPrompts($1, $2) },
        .answerPrompt: .owner { try await $0.answerPrompt($1, $2) },
        .appAccess: .owner { try await $0.listAppAccess($1, $2) },
        .setAccess: .owner { try await $0.setAccess($1, $2) },
        .accessDetail: .owner { try await $0.accessDetail($1, $2) },
        .audit: .owner { try await $0.auditEntries($1, $2) },
        // Services
        .identify: .service { try await $0.identifyApp($1, $2) },
        .decisions: .service { try await $0.appDecisions($1, $2) },
        .followDecisions: .service { try await $0.followDecisions($1, $2) },
        .decisionsApplied: .service { try await $0.decisionsApplied($1, $2) },
        .appLaunched: .service { try await $0.appLaunched($1, $2) },
        .assetCreated: .service { try await $0.assetCreated($1, $2) },
        .recordAudit: .service { try await $0.recordAudit($1, $2) },
        .confirmDelete: .service { try await $0.confirmDelete($1, $2) },
    ])
}
