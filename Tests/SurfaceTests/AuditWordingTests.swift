import Foundation
import LightboxProtocol
import Testing
@testable import Surface

/// The Activity page's sentences: every operation and outcome the services record reads as words,
/// with no code of the trail left in it.
@Suite struct AuditWordingTests {
    static let operations: [AuditOperation] = [
        .settings, .expand, .create, .deleteConfirmation, .status(nil), .status(.readWrite), .status(.addOnly),
        .request(.readWrite), .request(.addOnly), .prompt(.readWrite), .prompt(.addOnly),
        .pick(.opened), .pick(.answered), .describe, .load, .open, .fetch, .query, .image, .video, .properties, .changes,
        .delete, .albumAdd, .albumRemove, .albumAssets, .edit, .revert, .ownerRevert,
    ] + LibraryAction.allCases.map { AuditOperation.decision($0) }

    static let outcomes: [AuditOutcome] = [
        .ok, .delivered, .waiting, .timeout, .cancelled, .completed, .abandoned, .failed, .expired, .requested, .inCloud,
        .created, .changed, .deleted, .edited, .reverted, .allowed, .declined, .refused, .notLimited, .missingUsageDescription,
        .refused(.tokenRevoked), .refused("denied"), .allowed(.all), .allowed(.selection), .allowed(.none),
        .stored(.limited), .selection(count: 3), .settings(readWrite: .limited, addOnly: .notDetermined),
        .delivered(toProcess: 4242, user: 1000),
    ] + AuthorizationStatus.allCases.map { AuditOutcome.status($0) }

    @Test func everyOperationAndOutcomeIsSaidInWords() {
        let code = try! Regex("[a-z][A-Za-z]*:[A-Za-z]|[a-z][a-z]+[A-Z]")
        for operation in Self.operations {
            for outcome in Self.outcomes {
                let entry = AuditEntry(app: "postcards", operation: operation, assetCount: 2, outcome: outcome, at: Date())
                let sentence = AuditWording.sentence(entry)
                #expect(sentence.firstMatch(of: code) == nil, "\(operation) \(outcome) → \(sentence)")
                #expect(!sentence.contains("pid") && !sentence.contains("“\(operation.rawValue)”"), "\(sentence)")
            }
        }
    }

    @Test func aPickAndTheOwnersChangesReadAsSentences() {
        let received = AuditEntry(app: "postcards", operation: .pick(.answered), assetCount: 4, outcome: .delivered, at: Date())
        #expect(AuditWording.sentence(received) == "Received 4 items you picked: delivered")
        let changed = AuditEntry(app: "postcards", operation: .settings, assetCount: 12,
                                 outcome: .settings(readWrite: .limited, addOnly: .notDetermined), at: Date())
        #expect(AuditWording.sentence(changed) == "You changed its access: Photos: Limited · Add only: Not asked yet")
        let refused = AuditEntry(app: "postcards", operation: .load, assetCount: 1, outcome: .refused(.tokenRevoked), at: Date())
        #expect(AuditWording.sentence(refused) == "Loaded 1 item: refused (you revoked it)")
        #expect(AuditWording.words(.limited, selectionCount: 12) == "Limited to 12 photos")
    }

    @Test func everySentenceReadsInChineseWithNoEnglishLeft() {
        let chinese = SurfaceStrings(language: .simplifiedChinese)
        let latin = try! Regex("[A-Za-z]{2,}")
        for operation in Self.operations {
            for outcome in Self.outcomes {
                let entry = AuditEntry(app: "postcards", operation: operation, assetCount: 2, outcome: outcome, at: Date())
                let sentence = AuditWording.sentence(entry, strings: chinese)
                #expect(sentence.firstMatch(of: latin) == nil, "\(operation) \(outcome) → \(sentence)")
            }
        }
        let received = AuditEntry(app: "postcards", operation: .pick(.answered), assetCount: 4, outcome: .delivered, at: Date())
        #expect(AuditWording.sentence(received, strings: chinese) == "收到了你挑选的 4 项：已送达")
        #expect(AuditWording.words(.limited, selectionCount: 12, strings: chinese) == "仅限 12 张照片")
    }
}
