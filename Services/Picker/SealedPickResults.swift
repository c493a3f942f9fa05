import Crypto
import Foundation
import LightboxProtocol

/// A pick's results (their item-provider tokens) sealed to the picker process holding the app's
/// request, as the answer row in shared storage keeps them: tokens are stored only as their hashes,
/// so the row a choosing picker writes must not hold them readable either. HPKE (RFC 9180, base
/// mode) to the holder's X25519 key, which never leaves its process; the pick's id is the
/// associated data, so a sealed answer cannot be moved to another pick.
struct SealedPickResults: Codable, Sendable, Equatable {
    static let suite = HPKE.Ciphersuite.Curve25519_SHA256_ChachaPoly
    static let info = Data("lightbox pick answer v1".utf8)

    /// The sender's ephemeral public key.
    var encapsulatedKey: Data
    var ciphertext: Data

    /// Seals `results` of `pick` to the holder whose public key is `holderKey` (raw, 32 bytes).
    init(sealing results: [PickerResult], to holderKey: Data, pick: String) throws(LightboxError) {
        do {
            let recipient = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: holderKey)
            var sender = try HPKE.Sender(recipientKey: recipient, ciphersuite: Self.suite, info: Self.info)
            ciphertext = try sender.seal(try JSONEncoder().encode(results), authenticating: Data(pick.utf8))
            encapsulatedKey = sender.encapsulatedKey
        } catch {
            throw LightboxError(.internal, "The picker could not seal pick \(pick)'s answer for the picker holding the app's request; choose again.",
                               cause: error)
        }
    }

    /// The results, opened with the holder's private key.
    func open(with key: Curve25519.KeyAgreement.PrivateKey, pick: String) throws(LightboxError) -> [PickerResult] {
        do {
            var recipient = try HPKE.Recipient(privateKey: key, ciphersuite: Self.suite, info: Self.info, encapsulatedKey: encapsulatedKey)
            return try JSONDecoder().decode([PickerResult].self, from: try recipient.open(ciphertext, authenticating: Data(pick.utf8)))
        } catch {
            throw LightboxError(.internal, "The answer to pick \(pick) could not be opened by this picker; ask for the pick again.", cause: error)
        }
    }
}
