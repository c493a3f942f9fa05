import Foundation
import LightboxTransport
import Testing

@Suite struct KeyAndDigestTests {
    @Test func generatedKeysAreDistinctZ85() throws {
        let first = try CurveKeyPair.generate()
        let second = try CurveKeyPair.generate()
        #expect(first != second)
        #expect(CurveKeyPair.isValidPublicKey(first.publicKey))
        #expect(!CurveKeyPair.isValidPublicKey("too short"))
    }

    @Test func loadOrCreateWritesOnceWithPrivateMode() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("app.key")
        let created = try CurveKeyPair.loadOrCreate(at: url)
        let loaded = try CurveKeyPair.loadOrCreate(at: url)
        #expect(created == loaded)
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        #expect(try CurveKeyPair.loadPublicKey(from: folder.appendingPathComponent("app.pub")) == created.publicKey)
    }

    @Test func brokenKeyFileGivesAClearError() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString).key")
        try Data("not json".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: TransportError.self) { try CurveKeyPair.load(from: url) }
    }

    @Test func sha256MatchesKnownVectors() {
        #expect(SHA256Hasher.hex(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Hasher.hex(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        var pieces = SHA256Hasher()
        pieces.update(Data("a".utf8))
        pieces.update(Data("bc".utf8))
        #expect(pieces.finalize() == SHA256Hasher.hex(Data("abc".utf8)))
    }

    @Test func randomTokensAreLongAndUnique() {
        let tokens = (0..<100).map { _ in SecureRandom.token(bytes: 32) }
        #expect(Set(tokens).count == 100)
        #expect(tokens.allSatisfy { $0.count == 43 && !$0.contains("/") && !$0.contains("+") && !$0.contains("=") })
    }
}
