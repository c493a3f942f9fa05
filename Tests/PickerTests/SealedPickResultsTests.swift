import Crypto
import Foundation
import LightboxProtocol
import Testing
@testable import Picker

/// A chosen answer is sealed to the picker holding the app's request: only its key opens it, only
/// for its pick, and the sealed form shows no token.
struct SealedPickResultsTests {
    let results = (1...2).map { index in
        PickerResult(assetIdentifier: "asset-\(index)",
                     itemProvider: ItemProviderDescriptor(token: "token-\(index)-" + String(repeating: "x", count: 40), registeredTypeIdentifiers: [.jpeg],
                                                          suggestedName: "photo-\(index).jpg", expiresAt: Date(timeIntervalSince1970: 2_000_000_000)))
    }

    @Test func theHolderOpensWhatWasSealedToIt() throws {
        let holder = Curve25519.KeyAgreement.PrivateKey()
        let sealed = try SealedPickResults(sealing: results, to: holder.publicKey.rawRepresentation, pick: "pick-1")
        #expect(try sealed.open(with: holder, pick: "pick-1") == results)
        let stored = String(decoding: try JSONEncoder().encode(PickAnswer.chosen(sealed)), as: UTF8.self)
        for result in results {
            #expect(!stored.contains(result.itemProvider.token), "a token readable in \(stored)")
        }
    }

    @Test func anotherKeyOrAnotherPickCannotOpenIt() throws {
        let holder = Curve25519.KeyAgreement.PrivateKey()
        let sealed = try SealedPickResults(sealing: results, to: holder.publicKey.rawRepresentation, pick: "pick-1")
        #expect(throws: LightboxError.self) { try sealed.open(with: Curve25519.KeyAgreement.PrivateKey(), pick: "pick-1") }
        let moved = #expect(throws: LightboxError.self) { try sealed.open(with: holder, pick: "pick-2") }
        #expect(moved?.code == .internal)
        // Sealing twice gives different boxes (a fresh sender key each time).
        #expect(try SealedPickResults(sealing: results, to: holder.publicKey.rawRepresentation, pick: "pick-1") != sealed)
    }

    @Test func aKeyThatIsNotOneIsRefused() {
        let refused = #expect(throws: LightboxError.self) { try SealedPickResults(sealing: results, to: Data([1, 2, 3]), pick: "pick-1") }
        #expect(refused?.code == .internal)
    }
}
