import Foundation
import LightboxProtocol
import LightboxTransport

/// The owner's side of the auth service: prompts, per-app settings and the audit trail.
public struct OwnerSettings: Sendable {
    let auth: DealerConnection

    public init(auth: DealerConnection) {
        self.auth = auth
    }

    /// Prompts waiting for the owner; waits up to `wait` for one when none is open.
    public func prompts(waitingUpTo wait: Duration = .zero) async throws -> [OwnerPrompt] {
        try await auth.request(.prompts, PromptsRequest(waitMs: Int(wait.milliseconds)), as: PromptsResponse.self,
                               timeout: wait + .seconds(10)).prompts
    }

    /// Answers a prompt; with `limited` and `done`, `selection` and `albums` are what the app may see
    /// (an album's assets now and later); `location` is the location given to a prompt that asks for
    /// one (none when absent).
    public func answer(_ prompt: String, _ answer: PromptAnswer, selection: [String]? = nil, term: GrantTerm? = nil,
                       albums: [String]? = nil, location: LocationAccess? = nil) async throws {
        _ = try await auth.request(.answerPrompt, AnswerPromptRequest(prompt: prompt, answer: answer, selection: selection, term: term,
                                                                      albums: albums, location: location),
                                   as: Empty.self)
    }

    public func apps() async throws -> [AppAccess] {
        try await auth.request(.appAccess, Empty(), as: AppAccessListResponse.self).apps
    }

    @discardableResult
    public func setAccess(_ request: SetAccessRequest) async throws -> SetAccessResponse {
        try await auth.request(.setAccess, request, as: SetAccessResponse.self)
    }

    public func audit(app: String? = nil, limit: Int = 200) async throws -> [AuditEntry] {
        try await audit(AuditRequest(app: app, limit: limit)).entries
    }

    /// One page of the audit trail, newest first, filtered by app, operation and time.
    public func audit(_ request: AuditRequest) async throws -> AuditResponse {
        try await auth.request(.audit, request, as: AuditResponse.self)
    }

    /// One app's use of the library since `since`, counted by lightbox-auth (the privacy report).
    public func auditSummary(of app: String, since: Date, recentLimit: Int? = nil) async throws -> AuditSummary {
        try await auth.request(.auditSummary, AuditSummaryRequest(app: app, since: since, recentLimit: recentLimit), as: AuditSummary.self)
    }

    /// One app's settings with its whole limited selection.
    public func accessDetail(of app: String) async throws -> AccessDetail {
        try await auth.request(.accessDetail, AccessDetailRequest(app: app), as: AccessDetail.self)
    }
}
