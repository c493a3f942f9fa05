import Foundation
import LightboxProtocol
import Testing

/// The operation declarations (`Operations`) are the one list: PROTOCOL.md, the request fixtures
/// and `Tests/Fixtures/operations.json` (which the Python client's tests read) must agree with them.
@Suite struct OperationDeclarationTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures").standardizedFileURL
    static let protocolDocument = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/PROTOCOL.md").standardizedFileURL

    /// Every operation once, with the services that serve it.
    static var declared: [(declaration: OperationDeclaration, services: [String])] {
        var services: [OperationName: [String]] = [:]
        for declaration in Operations.picker { services[declaration.name, default: []].append("picker") }
        for declaration in Operations.auth { services[declaration.name, default: []].append("auth") }
        var seen: Set<OperationName> = []
        return (Operations.picker + Operations.auth).compactMap { declaration in
            seen.insert(declaration.name).inserted ? (declaration, services[declaration.name]!) : nil
        }
    }

    @Test func eachServiceDeclaresEachNameOnce() {
        for list in [Operations.picker, Operations.auth] {
            #expect(Set(list.map(\.name)).count == list.count)
        }
    }

    /// `operations.json` is the declarations as data, for clients in other languages.
    @Test func theOperationsFileMirrorsTheDeclarations() throws {
        let entries: [[String: String]] = Self.declared.map { declaration, services in
            var entry = ["name": declaration.name.rawValue, "caller": declaration.caller.rawValue,
                         "services": services.joined(separator: " "),
                         "body": "\(declaration.body)", "reply": "\(declaration.reply)"]
            if let audit = declaration.audit { entry["audit"] = audit.rawValue }
            return entry
        }.sorted { $0["name"]! < $1["name"]! }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let expected = try encoder.encode(["operations": entries]) + Data("\n".utf8)
        let file = Self.fixtures.appendingPathComponent("operations.json")
        if ProcessInfo.processInfo.environment["LIGHTBOX_WRITE_FIXTURES"] == "1" { try expected.write(to: file) }
        #expect(try Data(contentsOf: file) == expected,
                "Tests/Fixtures/operations.json differs from the declarations; run the tests with LIGHTBOX_WRITE_FIXTURES=1 to rewrite it")
    }

    /// Every operation has a request fixture that decodes as its declared body and encodes back the same.
    @Test func everyOperationHasARequestFixture() throws {
        let folder = Self.fixtures.appendingPathComponent("operations")
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") })
        let expected = Set(Self.declared.map { "\($0.declaration.name.rawValue).json" })
        #expect(files == expected, "missing: \(expected.subtracting(files).sorted()), undeclared: \(files.subtracting(expected).sorted())")
        for (declaration, _) in Self.declared where files.contains("\(declaration.name.rawValue).json") {
            let data = try Data(contentsOf: folder.appendingPathComponent("\(declaration.name.rawValue).json"))
            try Self.checkRoundTrip(of: data, as: declaration.body, named: declaration.name)
        }
    }

    static func checkRoundTrip<Body: Codable & Sendable>(of data: Data, as body: Body.Type, named name: OperationName) throws {
        let envelope = try WireCoding.decode(RequestEnvelope<Body>.self, from: data)
        #expect(envelope.op == name)
        let again = try WireCoding.encode(envelope)
        #expect(try WireCoding.decode(JSONValue.self, from: again) == WireCoding.decode(JSONValue.self, from: data),
                "\(name)'s fixture has a field its body type does not keep")
    }

    /// PROTOCOL.md lists each operation once, under the section of its caller and service.
    @Test func theProtocolDocumentListsEveryOperationUnderItsCaller() throws {
        let text = try String(contentsOf: Self.protocolDocument, encoding: .utf8)
        var documented: [String: [String]] = [:]
        var section: (caller: CallerKind, services: [String])?
        var inOperations = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { inOperations = line == "## Operations" }
            guard inOperations else { continue }
            if line.hasPrefix("### ") {
                section = Self.section(String(line.dropFirst(4)))
                continue
            }
            guard let section, line.hasPrefix("| `"), let firstCell = line.dropFirst(2).split(separator: "|").first else { continue }
            for name in firstCell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter({ $0.offset % 2 == 1 }).map({ String($0.element) })
            where name.contains(".") && !name.contains(" ") {
                for service in section.services { documented["\(service) \(name)", default: []].append(section.caller.rawValue) }
            }
        }
        var declared: [String: [String]] = [:]
        for (declaration, services) in Self.declared {
            for service in services { declared["\(service) \(declaration.name.rawValue)"] = [declaration.caller.rawValue] }
        }
        #expect(documented == declared, """
            undocumented: \(Set(declared.keys).subtracting(documented.keys).sorted()); \
            not declared: \(Set(documented.keys).subtracting(declared.keys).sorted()); \
            under another caller: \(declared.filter { documented[$0.key] != nil && documented[$0.key] != $0.value }.keys.sorted())
            """)
    }

    /// The caller and services a PROTOCOL.md operations section is for ("The owner, on the picker").
    static func section(_ title: String) -> (caller: CallerKind, services: [String])? {
        if title == "Any principal" { return (.any, ["picker", "auth"]) }
        let callers: [(String, CallerKind)] = [("Apps, ", .app), ("The owner, ", .owner), ("Services, ", .service),
                                               ("lightbox-portal, ", .portal)]
        guard let caller = callers.first(where: { title.hasPrefix($0.0) }) else { return nil }
        if title.contains("on the picker") { return (caller.1, ["picker"]) }
        if title.contains("on the auth service") { return (caller.1, ["auth"]) }
        return nil
    }
}
