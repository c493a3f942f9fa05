import Foundation
import LightboxClient
import LightboxProtocol
import LightboxTransport
import Testing

/// Every owner operation is all-or-nothing: sent with one invalid member at a time, it is refused
/// and the owner-visible state — apps, access, selections, albums, terms, location, prompts, picks,
/// the library — is byte for byte what it was. The operations come from the protocol's tables, so a
/// new owner operation fails this test until it has a case here. Runs on SQLite and, in the
/// PostgreSQL pass, on PostgreSQL.
@Suite(.serialized) struct OwnerWritesAllOrNothingTests {
    /// One owner operation: a valid body, and the invalid values to put in it one at a time (on top
    /// of a value of the wrong type for every member, made for each by `wrongTypes`).
    struct Case {
        var body: JSONValue
        /// Member paths (dot-separated) and a value that is the right type but not valid there.
        var invalid: [(path: String, value: JSONValue)] = []
    }

    static let unknownAsset = JSONValue.string("00000000-0000-0000-0000-000000000000/L0/001")
    static let past = JSONValue.string("2001-01-01T00:00:00Z")
    static func future(days: Double) -> JSONValue {
        .string(ISO8601DateFormatter().string(from: Date().addingTimeInterval(days * 86_400)))
    }

    /// The cases, by wire name. `pick`, `prompt` and `asset` are the ones open in the test's state.
    static func cases(pick: String, prompt: String, asset: String, album: String) -> [OperationName: Case] {
        let app = JSONValue.string("journal")
        let assetValue = JSONValue.string(asset)
        func one(_ members: [String: JSONValue]) -> JSONValue { .object(members) }
        return [
            // lightbox-picker
            .pendingPicks: Case(body: one(["waitMs": .number(0)])),
            .listAssets: Case(body: one(["limit": .number(10), "after": .null]), invalid: [("after", .string("not a cursor"))]),
            .outline: Case(body: one([:])),
            .thumbnail: Case(body: one(["asset": assetValue, "side": .number(64)]), invalid: [("asset", unknownAsset)]),
            .assetDetails: Case(body: one(["asset": assetValue]), invalid: [("asset", unknownAsset)]),
            .mediaRange: Case(body: one(["asset": assetValue, "part": .string("original"), "offset": .number(0), "length": .number(100)]),
                              invalid: [("asset", unknownAsset), ("part", .string("everything")), ("offset", .number(-1))]),
            .choose: Case(body: one(["pick": .string(pick), "assets": .array([assetValue]), "location": .string("none")]),
                          invalid: [("pick", .string("no-such-pick")), ("assets", .array([assetValue, unknownAsset])),
                                    ("assets", .array([unknownAsset])), ("location", .string("everywhere")),
                                    ("stripMetadata", .string("some"))]),
            .cancelPick: Case(body: one(["pick": .string(pick)]), invalid: [("pick", .string("no-such-pick"))]),
            .revoke: Case(body: one(["token": .string("lbp_not_a_token")])),
            .importLibrary: Case(body: one(["path": .string("/nonexistent/folder")]), invalid: [("path", .string("relative/folder"))]),
            .watchedImports: Case(body: one([:])),
            .ownerDelete: Case(body: one(["assets": .array([unknownAsset])]),
                               invalid: [("assets", .array([assetValue, unknownAsset])), ("assets", .array([]))]),
            .offload: Case(body: one(["asset": assetValue]), invalid: [("asset", unknownAsset)]),
            .restore: Case(body: one(["asset": assetValue]), invalid: [("asset", unknownAsset)]),
            .ownerRevert: Case(body: one(["asset": assetValue]), invalid: [("asset", unknownAsset)]),
            // lightbox-auth
            .registerApp: Case(body: one(["manifest": one(["id": .string("newcomer"), "name": .string("Newcomer"),
                                                           "publicKey": .string(Self.newcomerKey)])]),
                               invalid: [("manifest.publicKey", .string("not a key")), ("manifest.id", .string("")),
                                         ("manifest.id", .string("../journal"))]),
            .listApps: Case(body: one([:])),
            .prompts: Case(body: one(["waitMs": .number(0)])),
            .answerPrompt: Case(body: one(["prompt": .string(prompt), "answer": .string("allow"),
                                           "term": one(["until": future(days: 1)])]),
                                invalid: [("prompt", .string("no-such-prompt")), ("answer", .string("full")),
                                          ("term.until", past), ("term.until", future(days: 3_650)),
                                          ("term.then", .string("forever"))]),
            .appAccess: Case(body: one([:])),
            .setAccess: Case(body: one(["app": app, "readWrite": .string("limited"), "location": .string("precise"),
                                        "selection": .array([assetValue]), "albums": .array([.string(album)]),
                                        "term": one(["until": future(days: 1)])]),
                             invalid: [("app", .string("nobody")), ("readWrite", .string("everything")),
                                       ("term.until", past), ("term.until", future(days: 3_650)), ("albums", .array([.string("")])),
                                       ("location", .string("exact")), ("selection", .array([.number(1)]))]),
            .accessDetail: Case(body: one(["app": app]), invalid: [("app", .string("nobody"))]),
            .audit: Case(body: one(["app": app, "limit": .number(10)]), invalid: [("since", .string("yesterday"))]),
            .auditSummary: Case(body: one(["app": app, "since": past]), invalid: [("since", .string("last week"))]),
        ]
    }

    /// A key for the app `owner.apps.register` would add (never added: each of its bodies is invalid).
    static let newcomerKey = (try? CurveKeyPair.generate().publicKey) ?? ""

    /// A value of another JSON type than `value`, for each member: every body gets one per member.
    static func wrongTypes(of body: JSONValue, at prefix: String = "") -> [(path: String, value: JSONValue)] {
        guard case .object(let members) = body else { return [] }
        var variants: [(String, JSONValue)] = []
        for (key, value) in members.sorted(by: { $0.key < $1.key }) {
            let path = prefix.isEmpty ? key : "\(prefix).\(key)"
            switch value {
            case .string: variants.append((path, .number(17)))
            case .number: variants.append((path, .string("seventeen")))
            case .bool: variants.append((path, .string("yes")))
            case .array: variants.append((path, .string("a list")))
            case .object:
                variants.append((path, .array([.number(1)])))
                variants += wrongTypes(of: value, at: path)
            case .null: continue
            }
        }
        return variants
    }

    /// `body` with the member at `path` set to `value`.
    static func setting(_ path: String, to value: JSONValue, in body: JSONValue) -> JSONValue {
        guard case .object(var members) = body else { return body }
        let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
        if parts.count == 1 {
            members[parts[0]] = value
        } else {
            members[parts[0]] = setting(parts[1], to: value, in: members[parts[0]] ?? .object([:]))
        }
        return .object(members)
    }

    /// What the owner can see, as bytes: apps, access and detail of each app, prompts, picks, the
    /// library's first page and its outline. (The audit trail is left out: a refusal may be audited.)
    static func ownerVisibleState(auth: DealerConnection, picker: DealerConnection) async throws -> [String: Data] {
        let encoder = WireCoding.makeEncoder(sortedKeys: true)
        var state: [String: Data] = [:]
        state["owner.apps.list"] = try encoder.encode(try await auth.request(.listApps, Empty(), as: JSONValue.self))
        let access = try await auth.request(.appAccess, Empty(), as: AppAccessListResponse.self)
        state["owner.access.list"] = try encoder.encode(access)
        for app in access.apps where !(app.portal ?? false) {
            state["owner.access.get \(app.app)"] = try encoder.encode(
                try await auth.request(.accessDetail, AccessDetailRequest(app: app.app), as: JSONValue.self))
        }
        state["owner.prompts"] = try encoder.encode(try await auth.request(.prompts, PromptsRequest(waitMs: 0), as: JSONValue.self))
        state["owner.pending"] = try encoder.encode(try await picker.request(.pendingPicks, PendingPicksRequest(waitMs: 0), as: JSONValue.self))
        state["owner.assets"] = try encoder.encode(try await picker.request(.listAssets, ListAssetsRequest(limit: 500), as: JSONValue.self))
        state["owner.outline"] = try encoder.encode(try await picker.request(.outline, Empty(), as: JSONValue.self))
        return state
    }

    @Test func everyOwnerOperationRefusesAnInvalidMemberAndChangesNothing() async throws {
        let harness = try await ServiceHarness.start(promptTimeout: 600)
        defer { harness.stop() }
        let app = try await harness.registerApp("journal")
        let library = try await harness.library(for: "journal")
        let settings = try await harness.settings()
        let asset = try await harness.asset(named: "harbour.jpg").identifier
        let owner = try await harness.ownerConnection()
        let auth = try await harness.directory.connectToAuth(as: try harness.directory.ownerKeyPair())
        // An album, made by an app with full access, that a selection may follow.
        _ = try await harness.registerApp("curator")
        _ = try await settings.setAccess(SetAccessRequest(app: "curator", readWrite: .full))
        let curator = try await harness.library(for: "curator")
        let album = try await curator.createAlbum(title: "Family").identifier
        try await curator.add([asset], toAlbum: album)

        // The state the bug was found in: the app asked for access and a precise location, the owner denied.
        async let asked = library.requestAccess(for: .readWrite, location: .precise)
        let first = try await harness.openPrompt(settings, app: "journal")
        try await settings.answer(first.prompt, .deny)
        #expect(try await asked.status == .denied)
        // A prompt left open (add-only), and a pick left waiting for the owner.
        let addOnly = Task { try await library.requestAuthorization(for: .addOnly) }
        let prompt = try await harness.openPrompt(settings, app: "journal", kind: .authorization).prompt
        let picking = Task { () -> [String] in
            var seen: [String] = []
            for try await reply in app.send(.pick, PickRequest(configuration: PickerConfiguration(selectionLimit: 1)), timeout: .seconds(600)) {
                seen.append(reply.status.rawValue)
            }
            return seen
        }
        let pick = try await harness.pendingPick(try await harness.owner()).pick
        defer {
            addOnly.cancel()
            picking.cancel()
        }

        let tables = [(Operations.picker, owner), (Operations.auth, auth)]
        let cases = Self.cases(pick: pick, prompt: prompt, asset: asset, album: album)
        let before = try await Self.ownerVisibleState(auth: auth, picker: owner)
        var sent = 0
        for (declarations, connection) in tables {
            for declaration in declarations where declaration.caller == .owner {
                let operation = try #require(cases[declaration.name], "\(declaration.name) is an owner operation with no case in this test")
                for (path, value) in Self.wrongTypes(of: operation.body) + operation.invalid {
                    let body = Self.setting(path, to: value, in: operation.body)
                    let code = await errorCode { try await connection.request(declaration.name, body, as: JSONValue.self, timeout: .seconds(60)) }
                    #expect(code != nil, "\(declaration.name) with \(path) = \(value) was accepted")
                    let after = try await Self.ownerVisibleState(auth: auth, picker: owner)
                    for (part, bytes) in after where before[part] != bytes {
                        let refusal = code.map { "\($0)" } ?? "accepted"
                        let was = String(decoding: before[part] ?? Data(), as: UTF8.self), now = String(decoding: bytes, as: UTF8.self)
                        Issue.record("\(declaration.name) with \(path) = \(value) (\(refusal)) changed \(part):\nbefore \(was)\nafter  \(now)")
                    }
                    #expect(Set(after.keys) == Set(before.keys))
                    sent += 1
                }
            }
        }
        print("OwnerWritesAllOrNothingTests: \(sent) invalid requests over \(cases.count) owner operations, state unchanged")
        let ownerOperations = (Operations.picker + Operations.auth).filter { $0.caller == .owner }.count
        #expect(cases.count == ownerOperations, "a case for an operation that is gone")

        // The check can fail: the valid body of owner.access.set does change what the owner sees.
        let valid = try #require(cases[.setAccess]).body
        _ = try await auth.request(.setAccess, valid, as: JSONValue.self)
        let changed = try await Self.ownerVisibleState(auth: auth, picker: owner)
        #expect(changed["owner.access.list"] != before["owner.access.list"])
        let detail = try await settings.accessDetail(of: "journal")
        #expect(detail.access.readWrite == .limited && detail.access.location == .precise && detail.selection == [asset])
    }
}
