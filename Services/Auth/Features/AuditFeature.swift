import Foundation
import LightboxProtocol
import LightboxTransport
import Logging

/// The audit trail: the owner reads it; the picker reports the reads it served.
struct AuditFeature: Sendable {
    /// The most entries one `auth.audit.record` may carry; the picker sends far fewer.
    static let maximumBatch = 10_000

    let audit: AuditLog

    func register(in table: inout OperationTable) {
        table.on(Operations.audit) { _, body, _ in try await audit.entries(body) }
        table.on(Operations.auditSummary) { _, body, _ in try await audit.summary(body) }
        table.on(Operations.recordAudit) { _, body, _ in recordAudit(body) }
    }

    func recordAudit(_ body: AuditRecordRequest) -> Empty {
        audit.record(body.entries.prefix(Self.maximumBatch).map { entry in
            var entry = entry
            entry.id = nil
            return entry
        })
        return Empty()
    }
}
