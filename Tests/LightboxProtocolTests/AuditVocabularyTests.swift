import Foundation
import LightboxProtocol
import Testing

/// The typed audit vocabulary spells exactly what the trail and the wire have always said.
@Suite struct AuditVocabularyTests {
    @Test func operationsSpellTheTrailsNames() {
        #expect(AuditOperation.pick(.opened).rawValue == "pick:opened")
        #expect(AuditOperation.pick(.answered).rawValue == "pick:answered")
        #expect(AuditOperation.status(nil).rawValue == "status:legacy")
        #expect(AuditOperation.status(.addOnly).rawValue == "status:addOnly")
        #expect(AuditOperation.request(.readWrite).rawValue == "request:readWrite")
        #expect(AuditOperation.prompt(.readWrite).rawValue == "prompt:readWrite")
        #expect(AuditOperation.deleteConfirmation.rawValue == "delete:confirm")
        #expect(AuditOperation.decision(.listAlbums).rawValue == "listAlbums")
        #expect(AuditOperation.albumAdd.rawValue == "album:add")
        #expect([AuditOperation.settings, .expand, .create, .describe, .load, .open, .fetch, .query, .image, .video, .properties,
                 .changes, .delete].map(\.rawValue)
                == ["settings", "expand", "create", "describe", "load", "open", "fetch", "query", "image", "video", "properties",
                    "changes", "delete"])
    }

    @Test func aNameIsAFamilyAndADetail() {
        let opened = AuditOperation(rawValue: "pick:opened")
        #expect(opened == .pick(.opened))
        #expect(opened.family == "pick" && opened.detail == "opened")
        #expect(AuditOperation(rawValue: "load") == .load)
        #expect(AuditOperation(rawValue: "a:b:c").detail == "b:c")
        #expect(AuditOperation(rawValue: "a:b:c").rawValue == "a:b:c")
    }

    /// The rule owner.audit's `operation` filter follows: a whole name or a family.
    @Test func aFilterMatchesANameOrItsFamily() {
        #expect(AuditOperation.pick(.opened).matches("pick"))
        #expect(AuditOperation.pick(.opened).matches("pick:opened"))
        #expect(!AuditOperation.pick(.opened).matches("pick:answered"))
        #expect(!AuditOperation.pick(.opened).matches("pic"))
        #expect(!AuditOperation(rawValue: "picker").matches("pick"))
    }

    @Test func outcomesSpellTheTrailsWords() {
        #expect(AuditOutcome.refused(.tokenExpired).rawValue == "refused:tokenExpired")
        #expect(AuditOutcome.allowed(.selection).rawValue == "allowed:selection")
        #expect(AuditOutcome.stored(.denied).rawValue == "stored:denied")
        #expect(AuditOutcome.selection(count: 3).rawValue == "selection:3")
        #expect(AuditOutcome.settings(readWrite: .limited, addOnly: .authorized).rawValue == "readWrite:limited addOnly:authorized")
        #expect(AuditOutcome.delivered(toProcess: 4242, user: 1000).rawValue == "delivered to pid 4242 uid 1000")
        #expect([AuditOutcome.ok, .waiting, .timeout, .delivered].map(\.rawValue) == ["ok", "waiting", "timeout", "delivered"])
    }
}
